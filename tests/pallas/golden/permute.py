"""Pallas kernels of examples/permute.ath, emitted by athene (target pallas). Do not edit.

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


# ---- kernel perm2_2x32

def _perm2_2x32_y(x_ref, y_ref):
    # y[b, a] = x[a, b]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_perm2_2x32_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 32), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((32, 2), lambda _: (np.int32(0), np.int32(0))))


def perm2_2x32_pure(x, *, interpret=False):
    """Traceable perm2_2x32(x f32[2, 32]) -> y f32[32, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm2_2x32_y,
        out_shape=jax.ShapeDtypeStruct((32, 2), jnp.float32),
        grid_spec=_perm2_2x32_y_grid,
        interpret=interpret,
    )(x.reshape(2, 32))
    y = y.reshape(-1)
    return y.reshape(32, 2)


_perm2_2x32 = jax.jit(perm2_2x32_pure, static_argnames="interpret")


def perm2_2x32(x, *, interpret=None):
    """perm2_2x32(x f32[2, 32]) -> y f32[32, 2]."""
    return _run(_perm2_2x32, (x,), interpret)


# ---- kernel perm2_10000x2

def _perm2_10000x2_y(x_ref, y_ref):
    # y[b, a] = x[a, b]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_perm2_10000x2_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((10000, 2), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 10000), lambda _: (np.int32(0), np.int32(0))))


def perm2_10000x2_pure(x, *, interpret=False):
    """Traceable perm2_10000x2(x f32[10000, 2]) -> y f32[2, 10000]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm2_10000x2_y,
        out_shape=jax.ShapeDtypeStruct((2, 10000), jnp.float32),
        grid_spec=_perm2_10000x2_y_grid,
        compiler_params=pltpu.CompilerParams(vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(10000, 2))
    y = y.reshape(-1)
    return y.reshape(2, 10000)


_perm2_10000x2 = jax.jit(perm2_10000x2_pure, static_argnames="interpret")


def perm2_10000x2(x, *, interpret=None):
    """perm2_10000x2(x f32[10000, 2]) -> y f32[2, 10000]."""
    return _run(_perm2_10000x2, (x,), interpret)


# ---- kernel perm2_2x10000

def _perm2_2x10000_y(x_ref, y_ref):
    # y[b, a] = x[a, b]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_perm2_2x10000_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 10000), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((10000, 2), lambda _: (np.int32(0), np.int32(0))))


def perm2_2x10000_pure(x, *, interpret=False):
    """Traceable perm2_2x10000(x f32[2, 10000]) -> y f32[10000, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm2_2x10000_y,
        out_shape=jax.ShapeDtypeStruct((10000, 2), jnp.float32),
        grid_spec=_perm2_2x10000_y_grid,
        compiler_params=pltpu.CompilerParams(vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 10000))
    y = y.reshape(-1)
    return y.reshape(10000, 2)


_perm2_2x10000 = jax.jit(perm2_2x10000_pure, static_argnames="interpret")


def perm2_2x10000(x, *, interpret=None):
    """perm2_2x10000(x f32[2, 10000]) -> y f32[10000, 2]."""
    return _run(_perm2_2x10000, (x,), interpret)


# ---- kernel perm2_8x128

def _perm2_8x128_y(x_ref, y_ref):
    # y[b, a] = x[a, b]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_perm2_8x128_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 128), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((128, 8), lambda _: (np.int32(0), np.int32(0))))


def perm2_8x128_pure(x, *, interpret=False):
    """Traceable perm2_8x128(x f32[8, 128]) -> y f32[128, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm2_8x128_y,
        out_shape=jax.ShapeDtypeStruct((128, 8), jnp.float32),
        grid_spec=_perm2_8x128_y_grid,
        interpret=interpret,
    )(x.reshape(8, 128))
    y = y.reshape(-1)
    return y.reshape(128, 8)


_perm2_8x128 = jax.jit(perm2_8x128_pure, static_argnames="interpret")


def perm2_8x128(x, *, interpret=None):
    """perm2_8x128(x f32[8, 128]) -> y f32[128, 8]."""
    return _run(_perm2_8x128, (x,), interpret)


# ---- kernel perm2_128x8

def _perm2_128x8_y(x_ref, y_ref):
    # y[b, a] = x[a, b]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_perm2_128x8_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((128, 8), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 128), lambda _: (np.int32(0), np.int32(0))))


def perm2_128x8_pure(x, *, interpret=False):
    """Traceable perm2_128x8(x f32[128, 8]) -> y f32[8, 128]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm2_128x8_y,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        grid_spec=_perm2_128x8_y_grid,
        interpret=interpret,
    )(x.reshape(128, 8))
    y = y.reshape(-1)
    return y.reshape(8, 128)


_perm2_128x8 = jax.jit(perm2_128x8_pure, static_argnames="interpret")


def perm2_128x8(x, *, interpret=None):
    """perm2_128x8(x f32[128, 8]) -> y f32[8, 128]."""
    return _run(_perm2_128x8, (x,), interpret)


# ---- kernel perm2_3x256

def _perm2_3x256_y(x_ref, y_ref):
    # y[b, a] = x[a, b]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_perm2_3x256_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((3, 256), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((256, 3), lambda _: (np.int32(0), np.int32(0))))


def perm2_3x256_pure(x, *, interpret=False):
    """Traceable perm2_3x256(x f32[3, 256]) -> y f32[256, 3]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm2_3x256_y,
        out_shape=jax.ShapeDtypeStruct((256, 3), jnp.float32),
        grid_spec=_perm2_3x256_y_grid,
        interpret=interpret,
    )(x.reshape(3, 256))
    y = y.reshape(-1)
    return y.reshape(256, 3)


_perm2_3x256 = jax.jit(perm2_3x256_pure, static_argnames="interpret")


def perm2_3x256(x, *, interpret=None):
    """perm2_3x256(x f32[3, 256]) -> y f32[256, 3]."""
    return _run(_perm2_3x256, (x,), interpret)


# ---- kernel perm3_2x32x32_102

def _perm3_2x32x32_102_y(x_ref, y_ref):
    # y[b, a, c] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 2))
    out = v0
    y_ref[...] = out


_perm3_2x32x32_102_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 32, 32), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((32, 2, 32), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x32x32_102_pure(x, *, interpret=False):
    """Traceable perm3_2x32x32_102(x f32[2, 32, 32]) -> y f32[32, 2, 32]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x32x32_102_y,
        out_shape=jax.ShapeDtypeStruct((32, 2, 32), jnp.float32),
        grid_spec=_perm3_2x32x32_102_y_grid,
        interpret=interpret,
    )(x.reshape(2, 32, 32))
    y = y.reshape(-1)
    return y.reshape(32, 2, 32)


_perm3_2x32x32_102 = jax.jit(perm3_2x32x32_102_pure, static_argnames="interpret")


def perm3_2x32x32_102(x, *, interpret=None):
    """perm3_2x32x32_102(x f32[2, 32, 32]) -> y f32[32, 2, 32]."""
    return _run(_perm3_2x32x32_102, (x,), interpret)


# ---- kernel perm3_2x8x16_021

def _perm3_2x8x16_021_y(x_ref, y_ref):
    # y[a, c, b] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (0, 2, 1))
    out = v0
    y_ref[...] = out


_perm3_2x8x16_021_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 16, 8), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x8x16_021_pure(x, *, interpret=False):
    """Traceable perm3_2x8x16_021(x f32[2, 8, 16]) -> y f32[2, 16, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x8x16_021_y,
        out_shape=jax.ShapeDtypeStruct((2, 16, 8), jnp.float32),
        grid_spec=_perm3_2x8x16_021_y_grid,
        interpret=interpret,
    )(x.reshape(2, 8, 16))
    y = y.reshape(-1)
    return y.reshape(2, 16, 8)


_perm3_2x8x16_021 = jax.jit(perm3_2x8x16_021_pure, static_argnames="interpret")


def perm3_2x8x16_021(x, *, interpret=None):
    """perm3_2x8x16_021(x f32[2, 8, 16]) -> y f32[2, 16, 8]."""
    return _run(_perm3_2x8x16_021, (x,), interpret)


# ---- kernel perm3_2x8x16_102

def _perm3_2x8x16_102_y(x_ref, y_ref):
    # y[b, a, c] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 2))
    out = v0
    y_ref[...] = out


_perm3_2x8x16_102_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 2, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x8x16_102_pure(x, *, interpret=False):
    """Traceable perm3_2x8x16_102(x f32[2, 8, 16]) -> y f32[8, 2, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x8x16_102_y,
        out_shape=jax.ShapeDtypeStruct((8, 2, 16), jnp.float32),
        grid_spec=_perm3_2x8x16_102_y_grid,
        interpret=interpret,
    )(x.reshape(2, 8, 16))
    y = y.reshape(-1)
    return y.reshape(8, 2, 16)


_perm3_2x8x16_102 = jax.jit(perm3_2x8x16_102_pure, static_argnames="interpret")


def perm3_2x8x16_102(x, *, interpret=None):
    """perm3_2x8x16_102(x f32[2, 8, 16]) -> y f32[8, 2, 16]."""
    return _run(_perm3_2x8x16_102, (x,), interpret)


# ---- kernel perm3_2x8x16_120

def _perm3_2x8x16_120_y(x_ref, y_ref):
    # y[b, c, a] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 2, 0))
    out = v0
    y_ref[...] = out


_perm3_2x8x16_120_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 16, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x8x16_120_pure(x, *, interpret=False):
    """Traceable perm3_2x8x16_120(x f32[2, 8, 16]) -> y f32[8, 16, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x8x16_120_y,
        out_shape=jax.ShapeDtypeStruct((8, 16, 2), jnp.float32),
        grid_spec=_perm3_2x8x16_120_y_grid,
        interpret=interpret,
    )(x.reshape(2, 8, 16))
    y = y.reshape(-1)
    return y.reshape(8, 16, 2)


_perm3_2x8x16_120 = jax.jit(perm3_2x8x16_120_pure, static_argnames="interpret")


def perm3_2x8x16_120(x, *, interpret=None):
    """perm3_2x8x16_120(x f32[2, 8, 16]) -> y f32[8, 16, 2]."""
    return _run(_perm3_2x8x16_120, (x,), interpret)


# ---- kernel perm3_2x8x16_201

def _perm3_2x8x16_201_y(x_ref, y_ref):
    # y[c, a, b] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 0, 1))
    out = v0
    y_ref[...] = out


_perm3_2x8x16_201_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 2, 8), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x8x16_201_pure(x, *, interpret=False):
    """Traceable perm3_2x8x16_201(x f32[2, 8, 16]) -> y f32[16, 2, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x8x16_201_y,
        out_shape=jax.ShapeDtypeStruct((16, 2, 8), jnp.float32),
        grid_spec=_perm3_2x8x16_201_y_grid,
        interpret=interpret,
    )(x.reshape(2, 8, 16))
    y = y.reshape(-1)
    return y.reshape(16, 2, 8)


_perm3_2x8x16_201 = jax.jit(perm3_2x8x16_201_pure, static_argnames="interpret")


def perm3_2x8x16_201(x, *, interpret=None):
    """perm3_2x8x16_201(x f32[2, 8, 16]) -> y f32[16, 2, 8]."""
    return _run(_perm3_2x8x16_201, (x,), interpret)


# ---- kernel perm3_2x8x16_210

def _perm3_2x8x16_210_y(x_ref, y_ref):
    # y[c, b, a] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    out = v0
    y_ref[...] = out


_perm3_2x8x16_210_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 8, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x8x16_210_pure(x, *, interpret=False):
    """Traceable perm3_2x8x16_210(x f32[2, 8, 16]) -> y f32[16, 8, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x8x16_210_y,
        out_shape=jax.ShapeDtypeStruct((16, 8, 2), jnp.float32),
        grid_spec=_perm3_2x8x16_210_y_grid,
        interpret=interpret,
    )(x.reshape(2, 8, 16))
    y = y.reshape(-1)
    return y.reshape(16, 8, 2)


_perm3_2x8x16_210 = jax.jit(perm3_2x8x16_210_pure, static_argnames="interpret")


def perm3_2x8x16_210(x, *, interpret=None):
    """perm3_2x8x16_210(x f32[2, 8, 16]) -> y f32[16, 8, 2]."""
    return _run(_perm3_2x8x16_210, (x,), interpret)


# ---- kernel perm3_2x8x2048_102

def _perm3_2x8x2048_102_y(x_ref, y_ref):
    # y[b, a, c] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 2))
    out = v0
    y_ref[...] = out


_perm3_2x8x2048_102_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 8, 2048), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 2, 2048), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x8x2048_102_pure(x, *, interpret=False):
    """Traceable perm3_2x8x2048_102(x f32[2, 8, 2048]) -> y f32[8, 2, 2048]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x8x2048_102_y,
        out_shape=jax.ShapeDtypeStruct((8, 2, 2048), jnp.float32),
        grid_spec=_perm3_2x8x2048_102_y_grid,
        interpret=interpret,
    )(x.reshape(2, 8, 2048))
    y = y.reshape(-1)
    return y.reshape(8, 2, 2048)


_perm3_2x8x2048_102 = jax.jit(perm3_2x8x2048_102_pure, static_argnames="interpret")


def perm3_2x8x2048_102(x, *, interpret=None):
    """perm3_2x8x2048_102(x f32[2, 8, 2048]) -> y f32[8, 2, 2048]."""
    return _run(_perm3_2x8x2048_102, (x,), interpret)


# ---- kernel perm3_2x8x2048_021

def _perm3_2x8x2048_021_y(x_ref, y_ref):
    # y[a, c, b] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (0, 2, 1))
    out = v0
    y_ref[...] = out


_perm3_2x8x2048_021_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 8, 2048), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 2048, 8), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x8x2048_021_pure(x, *, interpret=False):
    """Traceable perm3_2x8x2048_021(x f32[2, 8, 2048]) -> y f32[2, 2048, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x8x2048_021_y,
        out_shape=jax.ShapeDtypeStruct((2, 2048, 8), jnp.float32),
        grid_spec=_perm3_2x8x2048_021_y_grid,
        compiler_params=pltpu.CompilerParams(vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 8, 2048))
    y = y.reshape(-1)
    return y.reshape(2, 2048, 8)


_perm3_2x8x2048_021 = jax.jit(perm3_2x8x2048_021_pure, static_argnames="interpret")


def perm3_2x8x2048_021(x, *, interpret=None):
    """perm3_2x8x2048_021(x f32[2, 8, 2048]) -> y f32[2, 2048, 8]."""
    return _run(_perm3_2x8x2048_021, (x,), interpret)


# ---- kernel perm3_2x8x2048_210

def _perm3_2x8x2048_210_y(x_ref, y_ref):
    # y[c, b, a] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    out = v0
    y_ref[...] = out


_perm3_2x8x2048_210_y_grid = pl.GridSpec(
    grid=(2,),
    in_specs=[
        pl.BlockSpec((2, 8, 1920), lambda c: (np.int32(0), np.int32(0), c))],
    out_specs=pl.BlockSpec((1920, 8, 2), lambda c: (c, np.int32(0), np.int32(0))))


def perm3_2x8x2048_210_pure(x, *, interpret=False):
    """Traceable perm3_2x8x2048_210(x f32[2, 8, 2048]) -> y f32[2048, 8, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x8x2048_210_y,
        out_shape=jax.ShapeDtypeStruct((2048, 8, 2), jnp.float32),
        grid_spec=_perm3_2x8x2048_210_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 8, 2048))
    y = y.reshape(-1)
    return y.reshape(2048, 8, 2)


_perm3_2x8x2048_210 = jax.jit(perm3_2x8x2048_210_pure, static_argnames="interpret")


def perm3_2x8x2048_210(x, *, interpret=None):
    """perm3_2x8x2048_210(x f32[2, 8, 2048]) -> y f32[2048, 8, 2]."""
    return _run(_perm3_2x8x2048_210, (x,), interpret)


# ---- kernel perm3_2x1152x1024_102

def _perm3_2x1152x1024_102_y(x_ref, y_ref):
    # y[b, a, c] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 2))
    out = v0
    y_ref[...] = out


_perm3_2x1152x1024_102_y_grid = pl.GridSpec(
    grid=(6,),
    in_specs=[
        pl.BlockSpec((2, 200, 1024), lambda b: (np.int32(0), b, np.int32(0)))],
    out_specs=pl.BlockSpec((200, 2, 1024), lambda b: (b, np.int32(0), np.int32(0))))


def perm3_2x1152x1024_102_pure(x, *, interpret=False):
    """Traceable perm3_2x1152x1024_102(x f32[2, 1152, 1024]) -> y f32[1152, 2, 1024]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x1152x1024_102_y,
        out_shape=jax.ShapeDtypeStruct((1152, 2, 1024), jnp.float32),
        grid_spec=_perm3_2x1152x1024_102_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 1152, 1024))
    y = y.reshape(-1)
    return y.reshape(1152, 2, 1024)


_perm3_2x1152x1024_102 = jax.jit(perm3_2x1152x1024_102_pure, static_argnames="interpret")


def perm3_2x1152x1024_102(x, *, interpret=None):
    """perm3_2x1152x1024_102(x f32[2, 1152, 1024]) -> y f32[1152, 2, 1024]."""
    return _run(_perm3_2x1152x1024_102, (x,), interpret)


# ---- kernel perm3_2x1152x1024_021

def _perm3_2x1152x1024_021_y(x_ref, y_ref):
    # y[a, c, b] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v0 = v0.reshape((1, 896, 1152))
    out = jnp.broadcast_to(v0, (1, 896, 1152))
    out = out.reshape((896, 1152))
    y_ref[...] = out


_perm3_2x1152x1024_021_y_grid = pl.GridSpec(
    grid=(2, 2),
    in_specs=[
        pl.BlockSpec((None, 1152, 896), lambda a, c: (a, np.int32(0), c))],
    out_specs=pl.BlockSpec((None, 896, 1152), lambda a, c: (a, c, np.int32(0))))


def perm3_2x1152x1024_021_pure(x, *, interpret=False):
    """Traceable perm3_2x1152x1024_021(x f32[2, 1152, 1024]) -> y f32[2, 1024, 1152]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x1152x1024_021_y,
        out_shape=jax.ShapeDtypeStruct((2, 1024, 1152), jnp.float32),
        grid_spec=_perm3_2x1152x1024_021_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 1152, 1024))
    y = y.reshape(-1)
    return y.reshape(2, 1024, 1152)


_perm3_2x1152x1024_021 = jax.jit(perm3_2x1152x1024_021_pure, static_argnames="interpret")


def perm3_2x1152x1024_021(x, *, interpret=None):
    """perm3_2x1152x1024_021(x f32[2, 1152, 1024]) -> y f32[2, 1024, 1152]."""
    return _run(_perm3_2x1152x1024_021, (x,), interpret)


# ---- kernel perm3_2x1152x1024_210

def _perm3_2x1152x1024_210_y(x_ref, y_ref):
    # y[c, b, a] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    out = v0
    y_ref[...] = out


_perm3_2x1152x1024_210_y_grid = pl.GridSpec(
    grid=(144,),
    in_specs=[
        pl.BlockSpec((2, 8, 1024), lambda b: (np.int32(0), b, np.int32(0)))],
    out_specs=pl.BlockSpec((1024, 8, 2), lambda b: (np.int32(0), b, np.int32(0))))


def perm3_2x1152x1024_210_pure(x, *, interpret=False):
    """Traceable perm3_2x1152x1024_210(x f32[2, 1152, 1024]) -> y f32[1024, 1152, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x1152x1024_210_y,
        out_shape=jax.ShapeDtypeStruct((1024, 1152, 2), jnp.float32),
        grid_spec=_perm3_2x1152x1024_210_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 1152, 1024))
    y = y.reshape(-1)
    return y.reshape(1024, 1152, 2)


_perm3_2x1152x1024_210 = jax.jit(perm3_2x1152x1024_210_pure, static_argnames="interpret")


def perm3_2x1152x1024_210(x, *, interpret=None):
    """perm3_2x1152x1024_210(x f32[2, 1152, 1024]) -> y f32[1024, 1152, 2]."""
    return _run(_perm3_2x1152x1024_210, (x,), interpret)


# ---- kernel perm3_2x1152x2048_021

def _perm3_2x1152x2048_021_y(x_ref, y_ref):
    # y[a, c, b] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v0 = v0.reshape((1, 896, 1152))
    out = jnp.broadcast_to(v0, (1, 896, 1152))
    out = out.reshape((896, 1152))
    y_ref[...] = out


_perm3_2x1152x2048_021_y_grid = pl.GridSpec(
    grid=(2, 3),
    in_specs=[
        pl.BlockSpec((None, 1152, 896), lambda a, c: (a, np.int32(0), c))],
    out_specs=pl.BlockSpec((None, 896, 1152), lambda a, c: (a, c, np.int32(0))))


def perm3_2x1152x2048_021_pure(x, *, interpret=False):
    """Traceable perm3_2x1152x2048_021(x f32[2, 1152, 2048]) -> y f32[2, 2048, 1152]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x1152x2048_021_y,
        out_shape=jax.ShapeDtypeStruct((2, 2048, 1152), jnp.float32),
        grid_spec=_perm3_2x1152x2048_021_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 1152, 2048))
    y = y.reshape(-1)
    return y.reshape(2, 2048, 1152)


_perm3_2x1152x2048_021 = jax.jit(perm3_2x1152x2048_021_pure, static_argnames="interpret")


def perm3_2x1152x2048_021(x, *, interpret=None):
    """perm3_2x1152x2048_021(x f32[2, 1152, 2048]) -> y f32[2, 2048, 1152]."""
    return _run(_perm3_2x1152x2048_021, (x,), interpret)


# ---- kernel perm3_2x1152x2048_102

def _perm3_2x1152x2048_102_y(x_ref, y_ref):
    # y[b, a, c] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 2))
    out = v0
    y_ref[...] = out


_perm3_2x1152x2048_102_y_grid = pl.GridSpec(
    grid=(12,),
    in_specs=[
        pl.BlockSpec((2, 96, 2048), lambda b: (np.int32(0), b, np.int32(0)))],
    out_specs=pl.BlockSpec((96, 2, 2048), lambda b: (b, np.int32(0), np.int32(0))))


def perm3_2x1152x2048_102_pure(x, *, interpret=False):
    """Traceable perm3_2x1152x2048_102(x f32[2, 1152, 2048]) -> y f32[1152, 2, 2048]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x1152x2048_102_y,
        out_shape=jax.ShapeDtypeStruct((1152, 2, 2048), jnp.float32),
        grid_spec=_perm3_2x1152x2048_102_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 1152, 2048))
    y = y.reshape(-1)
    return y.reshape(1152, 2, 2048)


_perm3_2x1152x2048_102 = jax.jit(perm3_2x1152x2048_102_pure, static_argnames="interpret")


def perm3_2x1152x2048_102(x, *, interpret=None):
    """perm3_2x1152x2048_102(x f32[2, 1152, 2048]) -> y f32[1152, 2, 2048]."""
    return _run(_perm3_2x1152x2048_102, (x,), interpret)


# ---- kernel perm3_2x1152x2048_120

def _perm3_2x1152x2048_120_y(x_ref, y_ref):
    # y[b, c, a] = x[a, b, c]
    v0 = x_ref[...][:, 0, :]
    v0 = jnp.transpose(v0, (1, 0))
    v0 = v0.reshape((1, 2048, 2))
    out = jnp.broadcast_to(v0, (1, 2048, 2))
    out = out.reshape((2048, 2))
    y_ref[...] = out


_perm3_2x1152x2048_120_y_grid = pl.GridSpec(
    grid=(1152,),
    in_specs=[
        pl.BlockSpec((2, None, 1, 2048), lambda b: (np.int32(0), b, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((None, 2048, 2), lambda b: (b, np.int32(0), np.int32(0))))


def perm3_2x1152x2048_120_pure(x, *, interpret=False):
    """Traceable perm3_2x1152x2048_120(x f32[2, 1152, 2048]) -> y f32[1152, 2048, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x1152x2048_120_y,
        out_shape=jax.ShapeDtypeStruct((1152, 2048, 2), jnp.float32),
        grid_spec=_perm3_2x1152x2048_120_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
        interpret=interpret,
    )(x.reshape(2, 1152, 1, 2048))
    y = y.reshape(-1)
    return y.reshape(1152, 2048, 2)


_perm3_2x1152x2048_120 = jax.jit(perm3_2x1152x2048_120_pure, static_argnames="interpret")


def perm3_2x1152x2048_120(x, *, interpret=None):
    """perm3_2x1152x2048_120(x f32[2, 1152, 2048]) -> y f32[1152, 2048, 2]."""
    return _run(_perm3_2x1152x2048_120, (x,), interpret)


# ---- kernel perm3_2x1152x2048_201

def _perm3_2x1152x2048_201_y(x_ref, y_ref):
    # y[c, a, b] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 0, 1))
    out = v0
    y_ref[...] = out


_perm3_2x1152x2048_201_y_grid = pl.GridSpec(
    grid=(16,),
    in_specs=[
        pl.BlockSpec((2, 1152, 128), lambda c: (np.int32(0), np.int32(0), c))],
    out_specs=pl.BlockSpec((128, 2, 1152), lambda c: (c, np.int32(0), np.int32(0))))


def perm3_2x1152x2048_201_pure(x, *, interpret=False):
    """Traceable perm3_2x1152x2048_201(x f32[2, 1152, 2048]) -> y f32[2048, 2, 1152]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x1152x2048_201_y,
        out_shape=jax.ShapeDtypeStruct((2048, 2, 1152), jnp.float32),
        grid_spec=_perm3_2x1152x2048_201_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 1152, 2048))
    y = y.reshape(-1)
    return y.reshape(2048, 2, 1152)


_perm3_2x1152x2048_201 = jax.jit(perm3_2x1152x2048_201_pure, static_argnames="interpret")


def perm3_2x1152x2048_201(x, *, interpret=None):
    """perm3_2x1152x2048_201(x f32[2, 1152, 2048]) -> y f32[2048, 2, 1152]."""
    return _run(_perm3_2x1152x2048_201, (x,), interpret)


# ---- kernel perm3_2x1152x2048_210

def _perm3_2x1152x2048_210_y(x_ref, y_ref):
    # y[c, b, a] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    out = v0
    y_ref[...] = out


_perm3_2x1152x2048_210_y_grid = pl.GridSpec(
    grid=(2, 144),
    in_specs=[
        pl.BlockSpec((2, 8, 1920), lambda c, b: (np.int32(0), b, c))],
    out_specs=pl.BlockSpec((1920, 8, 2), lambda c, b: (c, b, np.int32(0))))


def perm3_2x1152x2048_210_pure(x, *, interpret=False):
    """Traceable perm3_2x1152x2048_210(x f32[2, 1152, 2048]) -> y f32[2048, 1152, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x1152x2048_210_y,
        out_shape=jax.ShapeDtypeStruct((2048, 1152, 2), jnp.float32),
        grid_spec=_perm3_2x1152x2048_210_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 1152, 2048))
    y = y.reshape(-1)
    return y.reshape(2048, 1152, 2)


_perm3_2x1152x2048_210 = jax.jit(perm3_2x1152x2048_210_pure, static_argnames="interpret")


def perm3_2x1152x2048_210(x, *, interpret=None):
    """perm3_2x1152x2048_210(x f32[2, 1152, 2048]) -> y f32[2048, 1152, 2]."""
    return _run(_perm3_2x1152x2048_210, (x,), interpret)


# ---- kernel perm3_2x24x16_102_s

def _perm3_2x24x16_102_s_y(x_ref, y_ref):
    # y[b, a, c] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 2))
    out = v0
    y_ref[...] = out


_perm3_2x24x16_102_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 24, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((24, 2, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x24x16_102_s_pure(x, *, interpret=False):
    """Traceable perm3_2x24x16_102_s(x f32[2, 24, 16]) -> y f32[24, 2, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x24x16_102_s_y,
        out_shape=jax.ShapeDtypeStruct((24, 2, 16), jnp.float32),
        grid_spec=_perm3_2x24x16_102_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 24, 16))
    y = y.reshape(-1)
    return y.reshape(24, 2, 16)


_perm3_2x24x16_102_s = jax.jit(perm3_2x24x16_102_s_pure, static_argnames="interpret")


def perm3_2x24x16_102_s(x, *, interpret=None):
    """perm3_2x24x16_102_s(x f32[2, 24, 16]) -> y f32[24, 2, 16]."""
    return _run(_perm3_2x24x16_102_s, (x,), interpret)


# ---- kernel perm3_2x24x16_021_s

def _perm3_2x24x16_021_s_y(x_ref, y_ref):
    # y[a, c, b] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (0, 2, 1))
    out = v0
    y_ref[...] = out


_perm3_2x24x16_021_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 24, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 16, 24), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x24x16_021_s_pure(x, *, interpret=False):
    """Traceable perm3_2x24x16_021_s(x f32[2, 24, 16]) -> y f32[2, 16, 24]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x24x16_021_s_y,
        out_shape=jax.ShapeDtypeStruct((2, 16, 24), jnp.float32),
        grid_spec=_perm3_2x24x16_021_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 24, 16))
    y = y.reshape(-1)
    return y.reshape(2, 16, 24)


_perm3_2x24x16_021_s = jax.jit(perm3_2x24x16_021_s_pure, static_argnames="interpret")


def perm3_2x24x16_021_s(x, *, interpret=None):
    """perm3_2x24x16_021_s(x f32[2, 24, 16]) -> y f32[2, 16, 24]."""
    return _run(_perm3_2x24x16_021_s, (x,), interpret)


# ---- kernel perm3_2x24x16_210_s

def _perm3_2x24x16_210_s_y(x_ref, y_ref):
    # y[c, b, a] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    out = v0
    y_ref[...] = out


_perm3_2x24x16_210_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 24, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 24, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x24x16_210_s_pure(x, *, interpret=False):
    """Traceable perm3_2x24x16_210_s(x f32[2, 24, 16]) -> y f32[16, 24, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x24x16_210_s_y,
        out_shape=jax.ShapeDtypeStruct((16, 24, 2), jnp.float32),
        grid_spec=_perm3_2x24x16_210_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 24, 16))
    y = y.reshape(-1)
    return y.reshape(16, 24, 2)


_perm3_2x24x16_210_s = jax.jit(perm3_2x24x16_210_s_pure, static_argnames="interpret")


def perm3_2x24x16_210_s(x, *, interpret=None):
    """perm3_2x24x16_210_s(x f32[2, 24, 16]) -> y f32[16, 24, 2]."""
    return _run(_perm3_2x24x16_210_s, (x,), interpret)


# ---- kernel perm3_2x24x32_021_s

def _perm3_2x24x32_021_s_y(x_ref, y_ref):
    # y[a, c, b] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (0, 2, 1))
    out = v0
    y_ref[...] = out


_perm3_2x24x32_021_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 24, 32), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 32, 24), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x24x32_021_s_pure(x, *, interpret=False):
    """Traceable perm3_2x24x32_021_s(x f32[2, 24, 32]) -> y f32[2, 32, 24]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x24x32_021_s_y,
        out_shape=jax.ShapeDtypeStruct((2, 32, 24), jnp.float32),
        grid_spec=_perm3_2x24x32_021_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 24, 32))
    y = y.reshape(-1)
    return y.reshape(2, 32, 24)


_perm3_2x24x32_021_s = jax.jit(perm3_2x24x32_021_s_pure, static_argnames="interpret")


def perm3_2x24x32_021_s(x, *, interpret=None):
    """perm3_2x24x32_021_s(x f32[2, 24, 32]) -> y f32[2, 32, 24]."""
    return _run(_perm3_2x24x32_021_s, (x,), interpret)


# ---- kernel perm3_2x24x32_102_s

def _perm3_2x24x32_102_s_y(x_ref, y_ref):
    # y[b, a, c] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 2))
    out = v0
    y_ref[...] = out


_perm3_2x24x32_102_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 24, 32), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((24, 2, 32), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x24x32_102_s_pure(x, *, interpret=False):
    """Traceable perm3_2x24x32_102_s(x f32[2, 24, 32]) -> y f32[24, 2, 32]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x24x32_102_s_y,
        out_shape=jax.ShapeDtypeStruct((24, 2, 32), jnp.float32),
        grid_spec=_perm3_2x24x32_102_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 24, 32))
    y = y.reshape(-1)
    return y.reshape(24, 2, 32)


_perm3_2x24x32_102_s = jax.jit(perm3_2x24x32_102_s_pure, static_argnames="interpret")


def perm3_2x24x32_102_s(x, *, interpret=None):
    """perm3_2x24x32_102_s(x f32[2, 24, 32]) -> y f32[24, 2, 32]."""
    return _run(_perm3_2x24x32_102_s, (x,), interpret)


# ---- kernel perm3_2x24x32_120_s

def _perm3_2x24x32_120_s_y(x_ref, y_ref):
    # y[b, c, a] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 2, 0))
    out = v0
    y_ref[...] = out


_perm3_2x24x32_120_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 24, 32), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((24, 32, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x24x32_120_s_pure(x, *, interpret=False):
    """Traceable perm3_2x24x32_120_s(x f32[2, 24, 32]) -> y f32[24, 32, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x24x32_120_s_y,
        out_shape=jax.ShapeDtypeStruct((24, 32, 2), jnp.float32),
        grid_spec=_perm3_2x24x32_120_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 24, 32))
    y = y.reshape(-1)
    return y.reshape(24, 32, 2)


_perm3_2x24x32_120_s = jax.jit(perm3_2x24x32_120_s_pure, static_argnames="interpret")


def perm3_2x24x32_120_s(x, *, interpret=None):
    """perm3_2x24x32_120_s(x f32[2, 24, 32]) -> y f32[24, 32, 2]."""
    return _run(_perm3_2x24x32_120_s, (x,), interpret)


# ---- kernel perm3_2x24x32_201_s

def _perm3_2x24x32_201_s_y(x_ref, y_ref):
    # y[c, a, b] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 0, 1))
    out = v0
    y_ref[...] = out


_perm3_2x24x32_201_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 24, 32), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((32, 2, 24), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x24x32_201_s_pure(x, *, interpret=False):
    """Traceable perm3_2x24x32_201_s(x f32[2, 24, 32]) -> y f32[32, 2, 24]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x24x32_201_s_y,
        out_shape=jax.ShapeDtypeStruct((32, 2, 24), jnp.float32),
        grid_spec=_perm3_2x24x32_201_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 24, 32))
    y = y.reshape(-1)
    return y.reshape(32, 2, 24)


_perm3_2x24x32_201_s = jax.jit(perm3_2x24x32_201_s_pure, static_argnames="interpret")


def perm3_2x24x32_201_s(x, *, interpret=None):
    """perm3_2x24x32_201_s(x f32[2, 24, 32]) -> y f32[32, 2, 24]."""
    return _run(_perm3_2x24x32_201_s, (x,), interpret)


# ---- kernel perm3_2x24x32_210_s

def _perm3_2x24x32_210_s_y(x_ref, y_ref):
    # y[c, b, a] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    out = v0
    y_ref[...] = out


_perm3_2x24x32_210_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 24, 32), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((32, 24, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x24x32_210_s_pure(x, *, interpret=False):
    """Traceable perm3_2x24x32_210_s(x f32[2, 24, 32]) -> y f32[32, 24, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x24x32_210_s_y,
        out_shape=jax.ShapeDtypeStruct((32, 24, 2), jnp.float32),
        grid_spec=_perm3_2x24x32_210_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 24, 32))
    y = y.reshape(-1)
    return y.reshape(32, 24, 2)


_perm3_2x24x32_210_s = jax.jit(perm3_2x24x32_210_s_pure, static_argnames="interpret")


def perm3_2x24x32_210_s(x, *, interpret=None):
    """perm3_2x24x32_210_s(x f32[2, 24, 32]) -> y f32[32, 24, 2]."""
    return _run(_perm3_2x24x32_210_s, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_0132

def _perm4_2x4x128x2048_0132_y(x_ref, y_ref):
    # y[a, b, d, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (0, 2, 1))
    v0 = v0.reshape((1, 4, 2048, 128))
    out = jnp.broadcast_to(v0, (1, 4, 2048, 128))
    out = out.reshape((4, 2048, 128))
    y_ref[...] = out


_perm4_2x4x128x2048_0132_y_grid = pl.GridSpec(
    grid=(2,),
    in_specs=[
        pl.BlockSpec((None, 4, 128, 2048), lambda a: (a, np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((None, 4, 2048, 128), lambda a: (a, np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_0132_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_0132(x f32[2, 4, 128, 2048]) -> y f32[2, 4, 2048, 128]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_0132_y,
        out_shape=jax.ShapeDtypeStruct((2, 4, 2048, 128), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_0132_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(2, 4, 2048, 128)


_perm4_2x4x128x2048_0132 = jax.jit(perm4_2x4x128x2048_0132_pure, static_argnames="interpret")


def perm4_2x4x128x2048_0132(x, *, interpret=None):
    """perm4_2x4x128x2048_0132(x f32[2, 4, 128, 2048]) -> y f32[2, 4, 2048, 128]."""
    return _run(_perm4_2x4x128x2048_0132, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_0213

def _perm4_2x4x128x2048_0213_y(x_ref, y_ref):
    # y[a, c, b, d] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 2))
    v0 = v0.reshape((1, 80, 4, 2048))
    out = jnp.broadcast_to(v0, (1, 80, 4, 2048))
    out = out.reshape((80, 4, 2048))
    y_ref[...] = out


_perm4_2x4x128x2048_0213_y_grid = pl.GridSpec(
    grid=(2, 2),
    in_specs=[
        pl.BlockSpec((None, 4, 80, 2048), lambda a, c: (a, np.int32(0), c, np.int32(0)))],
    out_specs=pl.BlockSpec((None, 80, 4, 2048), lambda a, c: (a, c, np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_0213_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_0213(x f32[2, 4, 128, 2048]) -> y f32[2, 128, 4, 2048]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_0213_y,
        out_shape=jax.ShapeDtypeStruct((2, 128, 4, 2048), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_0213_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(2, 128, 4, 2048)


_perm4_2x4x128x2048_0213 = jax.jit(perm4_2x4x128x2048_0213_pure, static_argnames="interpret")


def perm4_2x4x128x2048_0213(x, *, interpret=None):
    """perm4_2x4x128x2048_0213(x f32[2, 4, 128, 2048]) -> y f32[2, 128, 4, 2048]."""
    return _run(_perm4_2x4x128x2048_0213, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_0231

def _perm4_2x4x128x2048_0231_y(x_ref, y_ref):
    # y[a, c, d, b] = x[a, b, c, d]
    v0 = x_ref[...][:, :, 0, :]
    v0 = jnp.transpose(v0, (0, 2, 1))
    v0 = v0.reshape((2, 1, 2048, 4))
    out = jnp.broadcast_to(v0, (2, 1, 2048, 4))
    out = out.reshape((2, 2048, 4))
    y_ref[...] = out


_perm4_2x4x128x2048_0231_y_grid = pl.GridSpec(
    grid=(128,),
    in_specs=[
        pl.BlockSpec((2, 4, None, 1, 2048), lambda c: (np.int32(0), np.int32(0), c, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, None, 2048, 4), lambda c: (np.int32(0), c, np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_0231_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_0231(x f32[2, 4, 128, 2048]) -> y f32[2, 128, 2048, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_0231_y,
        out_shape=jax.ShapeDtypeStruct((2, 128, 2048, 4), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_0231_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 1, 2048))
    y = y.reshape(-1)
    return y.reshape(2, 128, 2048, 4)


_perm4_2x4x128x2048_0231 = jax.jit(perm4_2x4x128x2048_0231_pure, static_argnames="interpret")


def perm4_2x4x128x2048_0231(x, *, interpret=None):
    """perm4_2x4x128x2048_0231(x f32[2, 4, 128, 2048]) -> y f32[2, 128, 2048, 4]."""
    return _run(_perm4_2x4x128x2048_0231, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_0312

def _perm4_2x4x128x2048_0312_y(x_ref, y_ref):
    # y[a, d, b, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v0 = v0.reshape((1, 1792, 1, 128))
    out = jnp.broadcast_to(v0, (1, 1792, 1, 128))
    out = out.reshape((1792, 1, 128))
    y_ref[...] = out


_perm4_2x4x128x2048_0312_y_grid = pl.GridSpec(
    grid=(2, 2, 4),
    in_specs=[
        pl.BlockSpec((None, None, 128, 1792), lambda a, d, b: (a, b, np.int32(0), d))],
    out_specs=pl.BlockSpec((None, 1792, None, 1, 128), lambda a, d, b: (a, d, b, np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_0312_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_0312(x f32[2, 4, 128, 2048]) -> y f32[2, 2048, 4, 128]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_0312_y,
        out_shape=jax.ShapeDtypeStruct((2, 2048, 4, 1, 128), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_0312_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(2, 2048, 4, 128)


_perm4_2x4x128x2048_0312 = jax.jit(perm4_2x4x128x2048_0312_pure, static_argnames="interpret")


def perm4_2x4x128x2048_0312(x, *, interpret=None):
    """perm4_2x4x128x2048_0312(x f32[2, 4, 128, 2048]) -> y f32[2, 2048, 4, 128]."""
    return _run(_perm4_2x4x128x2048_0312, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_0321

def _perm4_2x4x128x2048_0321_y(x_ref, y_ref):
    # y[a, d, c, b] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    v0 = v0.reshape((1, 1920, 8, 4))
    out = jnp.broadcast_to(v0, (1, 1920, 8, 4))
    out = out.reshape((1920, 8, 4))
    y_ref[...] = out


_perm4_2x4x128x2048_0321_y_grid = pl.GridSpec(
    grid=(2, 2, 16),
    in_specs=[
        pl.BlockSpec((None, 4, 8, 1920), lambda a, d, c: (a, np.int32(0), c, d))],
    out_specs=pl.BlockSpec((None, 1920, 8, 4), lambda a, d, c: (a, d, c, np.int32(0))))


def perm4_2x4x128x2048_0321_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_0321(x f32[2, 4, 128, 2048]) -> y f32[2, 2048, 128, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_0321_y,
        out_shape=jax.ShapeDtypeStruct((2, 2048, 128, 4), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_0321_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(2, 2048, 128, 4)


_perm4_2x4x128x2048_0321 = jax.jit(perm4_2x4x128x2048_0321_pure, static_argnames="interpret")


def perm4_2x4x128x2048_0321(x, *, interpret=None):
    """perm4_2x4x128x2048_0321(x f32[2, 4, 128, 2048]) -> y f32[2, 2048, 128, 4]."""
    return _run(_perm4_2x4x128x2048_0321, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_1023

def _perm4_2x4x128x2048_1023_y(x_ref, y_ref):
    # y[b, a, c, d] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 2, 3))
    out = v0
    y_ref[...] = out


_perm4_2x4x128x2048_1023_y_grid = pl.GridSpec(
    grid=(2,),
    in_specs=[
        pl.BlockSpec((2, 2, 128, 2048), lambda b: (np.int32(0), b, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 2, 128, 2048), lambda b: (b, np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_1023_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_1023(x f32[2, 4, 128, 2048]) -> y f32[4, 2, 128, 2048]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_1023_y,
        out_shape=jax.ShapeDtypeStruct((4, 2, 128, 2048), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_1023_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(4, 2, 128, 2048)


_perm4_2x4x128x2048_1023 = jax.jit(perm4_2x4x128x2048_1023_pure, static_argnames="interpret")


def perm4_2x4x128x2048_1023(x, *, interpret=None):
    """perm4_2x4x128x2048_1023(x f32[2, 4, 128, 2048]) -> y f32[4, 2, 128, 2048]."""
    return _run(_perm4_2x4x128x2048_1023, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_1032

def _perm4_2x4x128x2048_1032_y(x_ref, y_ref):
    # y[b, a, d, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 3, 2))
    out = v0
    y_ref[...] = out


_perm4_2x4x128x2048_1032_y_grid = pl.GridSpec(
    grid=(2,),
    in_specs=[
        pl.BlockSpec((2, 2, 128, 2048), lambda b: (np.int32(0), b, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 2, 2048, 128), lambda b: (b, np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_1032_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_1032(x f32[2, 4, 128, 2048]) -> y f32[4, 2, 2048, 128]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_1032_y,
        out_shape=jax.ShapeDtypeStruct((4, 2, 2048, 128), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_1032_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(4, 2, 2048, 128)


_perm4_2x4x128x2048_1032 = jax.jit(perm4_2x4x128x2048_1032_pure, static_argnames="interpret")


def perm4_2x4x128x2048_1032(x, *, interpret=None):
    """perm4_2x4x128x2048_1032(x f32[2, 4, 128, 2048]) -> y f32[4, 2, 2048, 128]."""
    return _run(_perm4_2x4x128x2048_1032, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_1203

def _perm4_2x4x128x2048_1203_y(x_ref, y_ref):
    # y[b, c, a, d] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 2))
    v0 = v0.reshape((1, 96, 2, 2048))
    out = jnp.broadcast_to(v0, (1, 96, 2, 2048))
    out = out.reshape((96, 2, 2048))
    y_ref[...] = out


_perm4_2x4x128x2048_1203_y_grid = pl.GridSpec(
    grid=(4, 2),
    in_specs=[
        pl.BlockSpec((2, None, 96, 2048), lambda b, c: (np.int32(0), b, c, np.int32(0)))],
    out_specs=pl.BlockSpec((None, 96, 2, 2048), lambda b, c: (b, c, np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_1203_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_1203(x f32[2, 4, 128, 2048]) -> y f32[4, 128, 2, 2048]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_1203_y,
        out_shape=jax.ShapeDtypeStruct((4, 128, 2, 2048), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_1203_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(4, 128, 2, 2048)


_perm4_2x4x128x2048_1203 = jax.jit(perm4_2x4x128x2048_1203_pure, static_argnames="interpret")


def perm4_2x4x128x2048_1203(x, *, interpret=None):
    """perm4_2x4x128x2048_1203(x f32[2, 4, 128, 2048]) -> y f32[4, 128, 2, 2048]."""
    return _run(_perm4_2x4x128x2048_1203, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_1230

def _perm4_2x4x128x2048_1230_y(x_ref, y_ref):
    # y[b, c, d, a] = x[a, b, c, d]
    v0 = x_ref[...][:, :, 0, :]
    v0 = jnp.transpose(v0, (1, 2, 0))
    v0 = v0.reshape((4, 1, 2048, 2))
    out = jnp.broadcast_to(v0, (4, 1, 2048, 2))
    out = out.reshape((4, 2048, 2))
    y_ref[...] = out


_perm4_2x4x128x2048_1230_y_grid = pl.GridSpec(
    grid=(128,),
    in_specs=[
        pl.BlockSpec((2, 4, None, 1, 2048), lambda c: (np.int32(0), np.int32(0), c, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, None, 2048, 2), lambda c: (np.int32(0), c, np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_1230_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_1230(x f32[2, 4, 128, 2048]) -> y f32[4, 128, 2048, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_1230_y,
        out_shape=jax.ShapeDtypeStruct((4, 128, 2048, 2), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_1230_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 1, 2048))
    y = y.reshape(-1)
    return y.reshape(4, 128, 2048, 2)


_perm4_2x4x128x2048_1230 = jax.jit(perm4_2x4x128x2048_1230_pure, static_argnames="interpret")


def perm4_2x4x128x2048_1230(x, *, interpret=None):
    """perm4_2x4x128x2048_1230(x f32[2, 4, 128, 2048]) -> y f32[4, 128, 2048, 2]."""
    return _run(_perm4_2x4x128x2048_1230, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_1302

def _perm4_2x4x128x2048_1302_y(x_ref, y_ref):
    # y[b, d, a, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v0 = v0.reshape((1, 1792, 1, 128))
    out = jnp.broadcast_to(v0, (1, 1792, 1, 128))
    out = out.reshape((1792, 1, 128))
    y_ref[...] = out


_perm4_2x4x128x2048_1302_y_grid = pl.GridSpec(
    grid=(4, 2, 2),
    in_specs=[
        pl.BlockSpec((None, None, 128, 1792), lambda b, d, a: (a, b, np.int32(0), d))],
    out_specs=pl.BlockSpec((None, 1792, None, 1, 128), lambda b, d, a: (b, d, a, np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_1302_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_1302(x f32[2, 4, 128, 2048]) -> y f32[4, 2048, 2, 128]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_1302_y,
        out_shape=jax.ShapeDtypeStruct((4, 2048, 2, 1, 128), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_1302_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(4, 2048, 2, 128)


_perm4_2x4x128x2048_1302 = jax.jit(perm4_2x4x128x2048_1302_pure, static_argnames="interpret")


def perm4_2x4x128x2048_1302(x, *, interpret=None):
    """perm4_2x4x128x2048_1302(x f32[2, 4, 128, 2048]) -> y f32[4, 2048, 2, 128]."""
    return _run(_perm4_2x4x128x2048_1302, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_1320

def _perm4_2x4x128x2048_1320_y(x_ref, y_ref):
    # y[b, d, c, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    v0 = v0.reshape((1, 1920, 8, 2))
    out = jnp.broadcast_to(v0, (1, 1920, 8, 2))
    out = out.reshape((1920, 8, 2))
    y_ref[...] = out


_perm4_2x4x128x2048_1320_y_grid = pl.GridSpec(
    grid=(4, 2, 16),
    in_specs=[
        pl.BlockSpec((2, None, 8, 1920), lambda b, d, c: (np.int32(0), b, c, d))],
    out_specs=pl.BlockSpec((None, 1920, 8, 2), lambda b, d, c: (b, d, c, np.int32(0))))


def perm4_2x4x128x2048_1320_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_1320(x f32[2, 4, 128, 2048]) -> y f32[4, 2048, 128, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_1320_y,
        out_shape=jax.ShapeDtypeStruct((4, 2048, 128, 2), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_1320_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(4, 2048, 128, 2)


_perm4_2x4x128x2048_1320 = jax.jit(perm4_2x4x128x2048_1320_pure, static_argnames="interpret")


def perm4_2x4x128x2048_1320(x, *, interpret=None):
    """perm4_2x4x128x2048_1320(x f32[2, 4, 128, 2048]) -> y f32[4, 2048, 128, 2]."""
    return _run(_perm4_2x4x128x2048_1320, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_2013

def _perm4_2x4x128x2048_2013_y(x_ref, y_ref):
    # y[c, a, b, d] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 0, 1, 3))
    out = v0
    y_ref[...] = out


_perm4_2x4x128x2048_2013_y_grid = pl.GridSpec(
    grid=(4,),
    in_specs=[
        pl.BlockSpec((2, 4, 40, 2048), lambda c: (np.int32(0), np.int32(0), c, np.int32(0)))],
    out_specs=pl.BlockSpec((40, 2, 4, 2048), lambda c: (c, np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_2013_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_2013(x f32[2, 4, 128, 2048]) -> y f32[128, 2, 4, 2048]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_2013_y,
        out_shape=jax.ShapeDtypeStruct((128, 2, 4, 2048), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_2013_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(128, 2, 4, 2048)


_perm4_2x4x128x2048_2013 = jax.jit(perm4_2x4x128x2048_2013_pure, static_argnames="interpret")


def perm4_2x4x128x2048_2013(x, *, interpret=None):
    """perm4_2x4x128x2048_2013(x f32[2, 4, 128, 2048]) -> y f32[128, 2, 4, 2048]."""
    return _run(_perm4_2x4x128x2048_2013, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_2031

def _perm4_2x4x128x2048_2031_y(x_ref, y_ref):
    # y[c, a, d, b] = x[a, b, c, d]
    v0 = x_ref[...][:, :, 0, :]
    v0 = jnp.transpose(v0, (0, 2, 1))
    v0 = v0.reshape((1, 2, 2048, 4))
    out = jnp.broadcast_to(v0, (1, 2, 2048, 4))
    out = out.reshape((2, 2048, 4))
    y_ref[...] = out


_perm4_2x4x128x2048_2031_y_grid = pl.GridSpec(
    grid=(128,),
    in_specs=[
        pl.BlockSpec((2, 4, None, 1, 2048), lambda c: (np.int32(0), np.int32(0), c, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((None, 2, 2048, 4), lambda c: (c, np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_2031_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_2031(x f32[2, 4, 128, 2048]) -> y f32[128, 2, 2048, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_2031_y,
        out_shape=jax.ShapeDtypeStruct((128, 2, 2048, 4), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_2031_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 1, 2048))
    y = y.reshape(-1)
    return y.reshape(128, 2, 2048, 4)


_perm4_2x4x128x2048_2031 = jax.jit(perm4_2x4x128x2048_2031_pure, static_argnames="interpret")


def perm4_2x4x128x2048_2031(x, *, interpret=None):
    """perm4_2x4x128x2048_2031(x f32[2, 4, 128, 2048]) -> y f32[128, 2, 2048, 4]."""
    return _run(_perm4_2x4x128x2048_2031, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_2103

def _perm4_2x4x128x2048_2103_y(x_ref, y_ref):
    # y[c, b, a, d] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0, 3))
    out = v0
    y_ref[...] = out


_perm4_2x4x128x2048_2103_y_grid = pl.GridSpec(
    grid=(6,),
    in_specs=[
        pl.BlockSpec((2, 4, 24, 2048), lambda c: (np.int32(0), np.int32(0), c, np.int32(0)))],
    out_specs=pl.BlockSpec((24, 4, 2, 2048), lambda c: (c, np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_2103_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_2103(x f32[2, 4, 128, 2048]) -> y f32[128, 4, 2, 2048]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_2103_y,
        out_shape=jax.ShapeDtypeStruct((128, 4, 2, 2048), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_2103_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(128, 4, 2, 2048)


_perm4_2x4x128x2048_2103 = jax.jit(perm4_2x4x128x2048_2103_pure, static_argnames="interpret")


def perm4_2x4x128x2048_2103(x, *, interpret=None):
    """perm4_2x4x128x2048_2103(x f32[2, 4, 128, 2048]) -> y f32[128, 4, 2, 2048]."""
    return _run(_perm4_2x4x128x2048_2103, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_2130

def _perm4_2x4x128x2048_2130_y(x_ref, y_ref):
    # y[c, b, d, a] = x[a, b, c, d]
    v0 = x_ref[...][:, :, 0, :]
    v0 = jnp.transpose(v0, (1, 2, 0))
    v0 = v0.reshape((1, 4, 2048, 2))
    out = jnp.broadcast_to(v0, (1, 4, 2048, 2))
    out = out.reshape((4, 2048, 2))
    y_ref[...] = out


_perm4_2x4x128x2048_2130_y_grid = pl.GridSpec(
    grid=(128,),
    in_specs=[
        pl.BlockSpec((2, 4, None, 1, 2048), lambda c: (np.int32(0), np.int32(0), c, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((None, 4, 2048, 2), lambda c: (c, np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_2130_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_2130(x f32[2, 4, 128, 2048]) -> y f32[128, 4, 2048, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_2130_y,
        out_shape=jax.ShapeDtypeStruct((128, 4, 2048, 2), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_2130_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 1, 2048))
    y = y.reshape(-1)
    return y.reshape(128, 4, 2048, 2)


_perm4_2x4x128x2048_2130 = jax.jit(perm4_2x4x128x2048_2130_pure, static_argnames="interpret")


def perm4_2x4x128x2048_2130(x, *, interpret=None):
    """perm4_2x4x128x2048_2130(x f32[2, 4, 128, 2048]) -> y f32[128, 4, 2048, 2]."""
    return _run(_perm4_2x4x128x2048_2130, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_2301

def _perm4_2x4x128x2048_2301_y(x_ref, y_ref):
    # y[c, d, a, b] = x[a, b, c, d]
    v0 = x_ref[...][:, :, 0, :]
    v0 = jnp.transpose(v0, (2, 0, 1))
    v0 = v0.reshape((1, 1920, 2, 4))
    out = jnp.broadcast_to(v0, (1, 1920, 2, 4))
    out = out.reshape((1920, 2, 4))
    y_ref[...] = out


_perm4_2x4x128x2048_2301_y_grid = pl.GridSpec(
    grid=(128, 2),
    in_specs=[
        pl.BlockSpec((2, 4, None, 1, 1920), lambda c, d: (np.int32(0), np.int32(0), c, np.int32(0), d))],
    out_specs=pl.BlockSpec((None, 1920, 2, 4), lambda c, d: (c, d, np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_2301_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_2301(x f32[2, 4, 128, 2048]) -> y f32[128, 2048, 2, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_2301_y,
        out_shape=jax.ShapeDtypeStruct((128, 2048, 2, 4), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_2301_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 1, 2048))
    y = y.reshape(-1)
    return y.reshape(128, 2048, 2, 4)


_perm4_2x4x128x2048_2301 = jax.jit(perm4_2x4x128x2048_2301_pure, static_argnames="interpret")


def perm4_2x4x128x2048_2301(x, *, interpret=None):
    """perm4_2x4x128x2048_2301(x f32[2, 4, 128, 2048]) -> y f32[128, 2048, 2, 4]."""
    return _run(_perm4_2x4x128x2048_2301, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_2310

def _perm4_2x4x128x2048_2310_y(x_ref, y_ref):
    # y[c, d, b, a] = x[a, b, c, d]
    v0 = x_ref[...][:, :, 0, :]
    v0 = jnp.transpose(v0, (2, 1, 0))
    v0 = v0.reshape((1, 1920, 4, 2))
    out = jnp.broadcast_to(v0, (1, 1920, 4, 2))
    out = out.reshape((1920, 4, 2))
    y_ref[...] = out


_perm4_2x4x128x2048_2310_y_grid = pl.GridSpec(
    grid=(128, 2),
    in_specs=[
        pl.BlockSpec((2, 4, None, 1, 1920), lambda c, d: (np.int32(0), np.int32(0), c, np.int32(0), d))],
    out_specs=pl.BlockSpec((None, 1920, 4, 2), lambda c, d: (c, d, np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_2310_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_2310(x f32[2, 4, 128, 2048]) -> y f32[128, 2048, 4, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_2310_y,
        out_shape=jax.ShapeDtypeStruct((128, 2048, 4, 2), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_2310_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 1, 2048))
    y = y.reshape(-1)
    return y.reshape(128, 2048, 4, 2)


_perm4_2x4x128x2048_2310 = jax.jit(perm4_2x4x128x2048_2310_pure, static_argnames="interpret")


def perm4_2x4x128x2048_2310(x, *, interpret=None):
    """perm4_2x4x128x2048_2310(x f32[2, 4, 128, 2048]) -> y f32[128, 2048, 4, 2]."""
    return _run(_perm4_2x4x128x2048_2310, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_3012

def _perm4_2x4x128x2048_3012_y(x_ref, y_ref):
    # y[d, a, b, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v0 = v0.reshape((1792, 1, 1, 128))
    out = jnp.broadcast_to(v0, (1792, 1, 1, 128))
    out = out.reshape((1792, 1, 128))
    y_ref[...] = out


_perm4_2x4x128x2048_3012_y_grid = pl.GridSpec(
    grid=(2, 2, 4),
    in_specs=[
        pl.BlockSpec((None, None, 128, 1792), lambda d, a, b: (a, b, np.int32(0), d))],
    out_specs=pl.BlockSpec((1792, None, None, 1, 128), lambda d, a, b: (d, a, b, np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_3012_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_3012(x f32[2, 4, 128, 2048]) -> y f32[2048, 2, 4, 128]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_3012_y,
        out_shape=jax.ShapeDtypeStruct((2048, 2, 4, 1, 128), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_3012_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(2048, 2, 4, 128)


_perm4_2x4x128x2048_3012 = jax.jit(perm4_2x4x128x2048_3012_pure, static_argnames="interpret")


def perm4_2x4x128x2048_3012(x, *, interpret=None):
    """perm4_2x4x128x2048_3012(x f32[2, 4, 128, 2048]) -> y f32[2048, 2, 4, 128]."""
    return _run(_perm4_2x4x128x2048_3012, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_3021

def _perm4_2x4x128x2048_3021_y(x_ref, y_ref):
    # y[d, a, c, b] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    v0 = v0.reshape((1920, 1, 8, 4))
    out = jnp.broadcast_to(v0, (1920, 1, 8, 4))
    out = out.reshape((1920, 8, 4))
    y_ref[...] = out


_perm4_2x4x128x2048_3021_y_grid = pl.GridSpec(
    grid=(2, 2, 16),
    in_specs=[
        pl.BlockSpec((None, 4, 8, 1920), lambda d, a, c: (a, np.int32(0), c, d))],
    out_specs=pl.BlockSpec((1920, None, 8, 4), lambda d, a, c: (d, a, c, np.int32(0))))


def perm4_2x4x128x2048_3021_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_3021(x f32[2, 4, 128, 2048]) -> y f32[2048, 2, 128, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_3021_y,
        out_shape=jax.ShapeDtypeStruct((2048, 2, 128, 4), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_3021_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(2048, 2, 128, 4)


_perm4_2x4x128x2048_3021 = jax.jit(perm4_2x4x128x2048_3021_pure, static_argnames="interpret")


def perm4_2x4x128x2048_3021(x, *, interpret=None):
    """perm4_2x4x128x2048_3021(x f32[2, 4, 128, 2048]) -> y f32[2048, 2, 128, 4]."""
    return _run(_perm4_2x4x128x2048_3021, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_3102

def _perm4_2x4x128x2048_3102_y(x_ref, y_ref):
    # y[d, b, a, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v0 = v0.reshape((1792, 1, 1, 128))
    out = jnp.broadcast_to(v0, (1792, 1, 1, 128))
    out = out.reshape((1792, 1, 128))
    y_ref[...] = out


_perm4_2x4x128x2048_3102_y_grid = pl.GridSpec(
    grid=(2, 4, 2),
    in_specs=[
        pl.BlockSpec((None, None, 128, 1792), lambda d, b, a: (a, b, np.int32(0), d))],
    out_specs=pl.BlockSpec((1792, None, None, 1, 128), lambda d, b, a: (d, b, a, np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_3102_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_3102(x f32[2, 4, 128, 2048]) -> y f32[2048, 4, 2, 128]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_3102_y,
        out_shape=jax.ShapeDtypeStruct((2048, 4, 2, 1, 128), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_3102_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(2048, 4, 2, 128)


_perm4_2x4x128x2048_3102 = jax.jit(perm4_2x4x128x2048_3102_pure, static_argnames="interpret")


def perm4_2x4x128x2048_3102(x, *, interpret=None):
    """perm4_2x4x128x2048_3102(x f32[2, 4, 128, 2048]) -> y f32[2048, 4, 2, 128]."""
    return _run(_perm4_2x4x128x2048_3102, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_3120

def _perm4_2x4x128x2048_3120_y(x_ref, y_ref):
    # y[d, b, c, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    v0 = v0.reshape((1920, 1, 8, 2))
    out = jnp.broadcast_to(v0, (1920, 1, 8, 2))
    out = out.reshape((1920, 8, 2))
    y_ref[...] = out


_perm4_2x4x128x2048_3120_y_grid = pl.GridSpec(
    grid=(2, 4, 16),
    in_specs=[
        pl.BlockSpec((2, None, 8, 1920), lambda d, b, c: (np.int32(0), b, c, d))],
    out_specs=pl.BlockSpec((1920, None, 8, 2), lambda d, b, c: (d, b, c, np.int32(0))))


def perm4_2x4x128x2048_3120_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_3120(x f32[2, 4, 128, 2048]) -> y f32[2048, 4, 128, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_3120_y,
        out_shape=jax.ShapeDtypeStruct((2048, 4, 128, 2), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_3120_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 2048))
    y = y.reshape(-1)
    return y.reshape(2048, 4, 128, 2)


_perm4_2x4x128x2048_3120 = jax.jit(perm4_2x4x128x2048_3120_pure, static_argnames="interpret")


def perm4_2x4x128x2048_3120(x, *, interpret=None):
    """perm4_2x4x128x2048_3120(x f32[2, 4, 128, 2048]) -> y f32[2048, 4, 128, 2]."""
    return _run(_perm4_2x4x128x2048_3120, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_3201

def _perm4_2x4x128x2048_3201_y(x_ref, y_ref):
    # y[d, c, a, b] = x[a, b, c, d]
    v0 = x_ref[...][:, :, 0, :]
    v0 = jnp.transpose(v0, (2, 0, 1))
    v0 = v0.reshape((1920, 1, 2, 4))
    out = jnp.broadcast_to(v0, (1920, 1, 2, 4))
    out = out.reshape((1920, 2, 4))
    y_ref[...] = out


_perm4_2x4x128x2048_3201_y_grid = pl.GridSpec(
    grid=(2, 128),
    in_specs=[
        pl.BlockSpec((2, 4, None, 1, 1920), lambda d, c: (np.int32(0), np.int32(0), c, np.int32(0), d))],
    out_specs=pl.BlockSpec((1920, None, 2, 4), lambda d, c: (d, c, np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_3201_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_3201(x f32[2, 4, 128, 2048]) -> y f32[2048, 128, 2, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_3201_y,
        out_shape=jax.ShapeDtypeStruct((2048, 128, 2, 4), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_3201_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 1, 2048))
    y = y.reshape(-1)
    return y.reshape(2048, 128, 2, 4)


_perm4_2x4x128x2048_3201 = jax.jit(perm4_2x4x128x2048_3201_pure, static_argnames="interpret")


def perm4_2x4x128x2048_3201(x, *, interpret=None):
    """perm4_2x4x128x2048_3201(x f32[2, 4, 128, 2048]) -> y f32[2048, 128, 2, 4]."""
    return _run(_perm4_2x4x128x2048_3201, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_3210

def _perm4_2x4x128x2048_3210_y(x_ref, y_ref):
    # y[d, c, b, a] = x[a, b, c, d]
    v0 = x_ref[...][:, :, 0, :]
    v0 = jnp.transpose(v0, (2, 1, 0))
    v0 = v0.reshape((1920, 1, 4, 2))
    out = jnp.broadcast_to(v0, (1920, 1, 4, 2))
    out = out.reshape((1920, 4, 2))
    y_ref[...] = out


_perm4_2x4x128x2048_3210_y_grid = pl.GridSpec(
    grid=(2, 128),
    in_specs=[
        pl.BlockSpec((2, 4, None, 1, 1920), lambda d, c: (np.int32(0), np.int32(0), c, np.int32(0), d))],
    out_specs=pl.BlockSpec((1920, None, 4, 2), lambda d, c: (d, c, np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_3210_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_3210(x f32[2, 4, 128, 2048]) -> y f32[2048, 128, 4, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_3210_y,
        out_shape=jax.ShapeDtypeStruct((2048, 128, 4, 2), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_3210_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 128, 1, 2048))
    y = y.reshape(-1)
    return y.reshape(2048, 128, 4, 2)


_perm4_2x4x128x2048_3210 = jax.jit(perm4_2x4x128x2048_3210_pure, static_argnames="interpret")


def perm4_2x4x128x2048_3210(x, *, interpret=None):
    """perm4_2x4x128x2048_3210(x f32[2, 4, 128, 2048]) -> y f32[2048, 128, 4, 2]."""
    return _run(_perm4_2x4x128x2048_3210, (x,), interpret)


# ---- kernel perm4_2x4x8x16_0132_s

def _perm4_2x4x8x16_0132_s_y(x_ref, y_ref):
    # y[a, b, d, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (0, 1, 3, 2))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_0132_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 4, 16, 8), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_0132_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_0132_s(x f32[2, 4, 8, 16]) -> y f32[2, 4, 16, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_0132_s_y,
        out_shape=jax.ShapeDtypeStruct((2, 4, 16, 8), jnp.float32),
        grid_spec=_perm4_2x4x8x16_0132_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(2, 4, 16, 8)


_perm4_2x4x8x16_0132_s = jax.jit(perm4_2x4x8x16_0132_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_0132_s(x, *, interpret=None):
    """perm4_2x4x8x16_0132_s(x f32[2, 4, 8, 16]) -> y f32[2, 4, 16, 8]."""
    return _run(_perm4_2x4x8x16_0132_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_0213_s

def _perm4_2x4x8x16_0213_s_y(x_ref, y_ref):
    # y[a, c, b, d] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (0, 2, 1, 3))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_0213_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 8, 4, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_0213_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_0213_s(x f32[2, 4, 8, 16]) -> y f32[2, 8, 4, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_0213_s_y,
        out_shape=jax.ShapeDtypeStruct((2, 8, 4, 16), jnp.float32),
        grid_spec=_perm4_2x4x8x16_0213_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(2, 8, 4, 16)


_perm4_2x4x8x16_0213_s = jax.jit(perm4_2x4x8x16_0213_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_0213_s(x, *, interpret=None):
    """perm4_2x4x8x16_0213_s(x f32[2, 4, 8, 16]) -> y f32[2, 8, 4, 16]."""
    return _run(_perm4_2x4x8x16_0213_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_0231_s

def _perm4_2x4x8x16_0231_s_y(x_ref, y_ref):
    # y[a, c, d, b] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (0, 2, 3, 1))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_0231_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 8, 16, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_0231_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_0231_s(x f32[2, 4, 8, 16]) -> y f32[2, 8, 16, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_0231_s_y,
        out_shape=jax.ShapeDtypeStruct((2, 8, 16, 4), jnp.float32),
        grid_spec=_perm4_2x4x8x16_0231_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(2, 8, 16, 4)


_perm4_2x4x8x16_0231_s = jax.jit(perm4_2x4x8x16_0231_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_0231_s(x, *, interpret=None):
    """perm4_2x4x8x16_0231_s(x f32[2, 4, 8, 16]) -> y f32[2, 8, 16, 4]."""
    return _run(_perm4_2x4x8x16_0231_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_0312_s

def _perm4_2x4x8x16_0312_s_y(x_ref, y_ref):
    # y[a, d, b, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (0, 3, 1, 2))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_0312_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 16, 4, 8), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_0312_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_0312_s(x f32[2, 4, 8, 16]) -> y f32[2, 16, 4, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_0312_s_y,
        out_shape=jax.ShapeDtypeStruct((2, 16, 4, 8), jnp.float32),
        grid_spec=_perm4_2x4x8x16_0312_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(2, 16, 4, 8)


_perm4_2x4x8x16_0312_s = jax.jit(perm4_2x4x8x16_0312_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_0312_s(x, *, interpret=None):
    """perm4_2x4x8x16_0312_s(x f32[2, 4, 8, 16]) -> y f32[2, 16, 4, 8]."""
    return _run(_perm4_2x4x8x16_0312_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_0321_s

def _perm4_2x4x8x16_0321_s_y(x_ref, y_ref):
    # y[a, d, c, b] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (0, 3, 2, 1))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_0321_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 16, 8, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_0321_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_0321_s(x f32[2, 4, 8, 16]) -> y f32[2, 16, 8, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_0321_s_y,
        out_shape=jax.ShapeDtypeStruct((2, 16, 8, 4), jnp.float32),
        grid_spec=_perm4_2x4x8x16_0321_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(2, 16, 8, 4)


_perm4_2x4x8x16_0321_s = jax.jit(perm4_2x4x8x16_0321_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_0321_s(x, *, interpret=None):
    """perm4_2x4x8x16_0321_s(x f32[2, 4, 8, 16]) -> y f32[2, 16, 8, 4]."""
    return _run(_perm4_2x4x8x16_0321_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_1023_s

def _perm4_2x4x8x16_1023_s_y(x_ref, y_ref):
    # y[b, a, c, d] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 2, 3))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_1023_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 2, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_1023_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_1023_s(x f32[2, 4, 8, 16]) -> y f32[4, 2, 8, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_1023_s_y,
        out_shape=jax.ShapeDtypeStruct((4, 2, 8, 16), jnp.float32),
        grid_spec=_perm4_2x4x8x16_1023_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(4, 2, 8, 16)


_perm4_2x4x8x16_1023_s = jax.jit(perm4_2x4x8x16_1023_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_1023_s(x, *, interpret=None):
    """perm4_2x4x8x16_1023_s(x f32[2, 4, 8, 16]) -> y f32[4, 2, 8, 16]."""
    return _run(_perm4_2x4x8x16_1023_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_1032_s

def _perm4_2x4x8x16_1032_s_y(x_ref, y_ref):
    # y[b, a, d, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 3, 2))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_1032_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 2, 16, 8), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_1032_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_1032_s(x f32[2, 4, 8, 16]) -> y f32[4, 2, 16, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_1032_s_y,
        out_shape=jax.ShapeDtypeStruct((4, 2, 16, 8), jnp.float32),
        grid_spec=_perm4_2x4x8x16_1032_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(4, 2, 16, 8)


_perm4_2x4x8x16_1032_s = jax.jit(perm4_2x4x8x16_1032_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_1032_s(x, *, interpret=None):
    """perm4_2x4x8x16_1032_s(x f32[2, 4, 8, 16]) -> y f32[4, 2, 16, 8]."""
    return _run(_perm4_2x4x8x16_1032_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_1203_s

def _perm4_2x4x8x16_1203_s_y(x_ref, y_ref):
    # y[b, c, a, d] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 2, 0, 3))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_1203_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 8, 2, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_1203_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_1203_s(x f32[2, 4, 8, 16]) -> y f32[4, 8, 2, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_1203_s_y,
        out_shape=jax.ShapeDtypeStruct((4, 8, 2, 16), jnp.float32),
        grid_spec=_perm4_2x4x8x16_1203_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(4, 8, 2, 16)


_perm4_2x4x8x16_1203_s = jax.jit(perm4_2x4x8x16_1203_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_1203_s(x, *, interpret=None):
    """perm4_2x4x8x16_1203_s(x f32[2, 4, 8, 16]) -> y f32[4, 8, 2, 16]."""
    return _run(_perm4_2x4x8x16_1203_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_1230_s

def _perm4_2x4x8x16_1230_s_y(x_ref, y_ref):
    # y[b, c, d, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 2, 3, 0))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_1230_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 8, 16, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_1230_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_1230_s(x f32[2, 4, 8, 16]) -> y f32[4, 8, 16, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_1230_s_y,
        out_shape=jax.ShapeDtypeStruct((4, 8, 16, 2), jnp.float32),
        grid_spec=_perm4_2x4x8x16_1230_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(4, 8, 16, 2)


_perm4_2x4x8x16_1230_s = jax.jit(perm4_2x4x8x16_1230_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_1230_s(x, *, interpret=None):
    """perm4_2x4x8x16_1230_s(x f32[2, 4, 8, 16]) -> y f32[4, 8, 16, 2]."""
    return _run(_perm4_2x4x8x16_1230_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_1302_s

def _perm4_2x4x8x16_1302_s_y(x_ref, y_ref):
    # y[b, d, a, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 3, 0, 2))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_1302_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 16, 2, 8), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_1302_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_1302_s(x f32[2, 4, 8, 16]) -> y f32[4, 16, 2, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_1302_s_y,
        out_shape=jax.ShapeDtypeStruct((4, 16, 2, 8), jnp.float32),
        grid_spec=_perm4_2x4x8x16_1302_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(4, 16, 2, 8)


_perm4_2x4x8x16_1302_s = jax.jit(perm4_2x4x8x16_1302_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_1302_s(x, *, interpret=None):
    """perm4_2x4x8x16_1302_s(x f32[2, 4, 8, 16]) -> y f32[4, 16, 2, 8]."""
    return _run(_perm4_2x4x8x16_1302_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_1320_s

def _perm4_2x4x8x16_1320_s_y(x_ref, y_ref):
    # y[b, d, c, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 3, 2, 0))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_1320_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 16, 8, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_1320_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_1320_s(x f32[2, 4, 8, 16]) -> y f32[4, 16, 8, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_1320_s_y,
        out_shape=jax.ShapeDtypeStruct((4, 16, 8, 2), jnp.float32),
        grid_spec=_perm4_2x4x8x16_1320_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(4, 16, 8, 2)


_perm4_2x4x8x16_1320_s = jax.jit(perm4_2x4x8x16_1320_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_1320_s(x, *, interpret=None):
    """perm4_2x4x8x16_1320_s(x f32[2, 4, 8, 16]) -> y f32[4, 16, 8, 2]."""
    return _run(_perm4_2x4x8x16_1320_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_2013_s

def _perm4_2x4x8x16_2013_s_y(x_ref, y_ref):
    # y[c, a, b, d] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 0, 1, 3))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_2013_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 2, 4, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_2013_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_2013_s(x f32[2, 4, 8, 16]) -> y f32[8, 2, 4, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_2013_s_y,
        out_shape=jax.ShapeDtypeStruct((8, 2, 4, 16), jnp.float32),
        grid_spec=_perm4_2x4x8x16_2013_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(8, 2, 4, 16)


_perm4_2x4x8x16_2013_s = jax.jit(perm4_2x4x8x16_2013_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_2013_s(x, *, interpret=None):
    """perm4_2x4x8x16_2013_s(x f32[2, 4, 8, 16]) -> y f32[8, 2, 4, 16]."""
    return _run(_perm4_2x4x8x16_2013_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_2031_s

def _perm4_2x4x8x16_2031_s_y(x_ref, y_ref):
    # y[c, a, d, b] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 0, 3, 1))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_2031_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 2, 16, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_2031_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_2031_s(x f32[2, 4, 8, 16]) -> y f32[8, 2, 16, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_2031_s_y,
        out_shape=jax.ShapeDtypeStruct((8, 2, 16, 4), jnp.float32),
        grid_spec=_perm4_2x4x8x16_2031_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(8, 2, 16, 4)


_perm4_2x4x8x16_2031_s = jax.jit(perm4_2x4x8x16_2031_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_2031_s(x, *, interpret=None):
    """perm4_2x4x8x16_2031_s(x f32[2, 4, 8, 16]) -> y f32[8, 2, 16, 4]."""
    return _run(_perm4_2x4x8x16_2031_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_2103_s

def _perm4_2x4x8x16_2103_s_y(x_ref, y_ref):
    # y[c, b, a, d] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0, 3))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_2103_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 4, 2, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_2103_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_2103_s(x f32[2, 4, 8, 16]) -> y f32[8, 4, 2, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_2103_s_y,
        out_shape=jax.ShapeDtypeStruct((8, 4, 2, 16), jnp.float32),
        grid_spec=_perm4_2x4x8x16_2103_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(8, 4, 2, 16)


_perm4_2x4x8x16_2103_s = jax.jit(perm4_2x4x8x16_2103_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_2103_s(x, *, interpret=None):
    """perm4_2x4x8x16_2103_s(x f32[2, 4, 8, 16]) -> y f32[8, 4, 2, 16]."""
    return _run(_perm4_2x4x8x16_2103_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_2130_s

def _perm4_2x4x8x16_2130_s_y(x_ref, y_ref):
    # y[c, b, d, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 3, 0))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_2130_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 4, 16, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_2130_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_2130_s(x f32[2, 4, 8, 16]) -> y f32[8, 4, 16, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_2130_s_y,
        out_shape=jax.ShapeDtypeStruct((8, 4, 16, 2), jnp.float32),
        grid_spec=_perm4_2x4x8x16_2130_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(8, 4, 16, 2)


_perm4_2x4x8x16_2130_s = jax.jit(perm4_2x4x8x16_2130_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_2130_s(x, *, interpret=None):
    """perm4_2x4x8x16_2130_s(x f32[2, 4, 8, 16]) -> y f32[8, 4, 16, 2]."""
    return _run(_perm4_2x4x8x16_2130_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_2301_s

def _perm4_2x4x8x16_2301_s_y(x_ref, y_ref):
    # y[c, d, a, b] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 3, 0, 1))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_2301_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 16, 2, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_2301_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_2301_s(x f32[2, 4, 8, 16]) -> y f32[8, 16, 2, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_2301_s_y,
        out_shape=jax.ShapeDtypeStruct((8, 16, 2, 4), jnp.float32),
        grid_spec=_perm4_2x4x8x16_2301_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(8, 16, 2, 4)


_perm4_2x4x8x16_2301_s = jax.jit(perm4_2x4x8x16_2301_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_2301_s(x, *, interpret=None):
    """perm4_2x4x8x16_2301_s(x f32[2, 4, 8, 16]) -> y f32[8, 16, 2, 4]."""
    return _run(_perm4_2x4x8x16_2301_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_2310_s

def _perm4_2x4x8x16_2310_s_y(x_ref, y_ref):
    # y[c, d, b, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 3, 1, 0))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_2310_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 16, 4, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_2310_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_2310_s(x f32[2, 4, 8, 16]) -> y f32[8, 16, 4, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_2310_s_y,
        out_shape=jax.ShapeDtypeStruct((8, 16, 4, 2), jnp.float32),
        grid_spec=_perm4_2x4x8x16_2310_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(8, 16, 4, 2)


_perm4_2x4x8x16_2310_s = jax.jit(perm4_2x4x8x16_2310_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_2310_s(x, *, interpret=None):
    """perm4_2x4x8x16_2310_s(x f32[2, 4, 8, 16]) -> y f32[8, 16, 4, 2]."""
    return _run(_perm4_2x4x8x16_2310_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_3012_s

def _perm4_2x4x8x16_3012_s_y(x_ref, y_ref):
    # y[d, a, b, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (3, 0, 1, 2))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_3012_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 2, 4, 8), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_3012_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_3012_s(x f32[2, 4, 8, 16]) -> y f32[16, 2, 4, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_3012_s_y,
        out_shape=jax.ShapeDtypeStruct((16, 2, 4, 8), jnp.float32),
        grid_spec=_perm4_2x4x8x16_3012_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(16, 2, 4, 8)


_perm4_2x4x8x16_3012_s = jax.jit(perm4_2x4x8x16_3012_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_3012_s(x, *, interpret=None):
    """perm4_2x4x8x16_3012_s(x f32[2, 4, 8, 16]) -> y f32[16, 2, 4, 8]."""
    return _run(_perm4_2x4x8x16_3012_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_3021_s

def _perm4_2x4x8x16_3021_s_y(x_ref, y_ref):
    # y[d, a, c, b] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (3, 0, 2, 1))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_3021_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 2, 8, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_3021_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_3021_s(x f32[2, 4, 8, 16]) -> y f32[16, 2, 8, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_3021_s_y,
        out_shape=jax.ShapeDtypeStruct((16, 2, 8, 4), jnp.float32),
        grid_spec=_perm4_2x4x8x16_3021_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(16, 2, 8, 4)


_perm4_2x4x8x16_3021_s = jax.jit(perm4_2x4x8x16_3021_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_3021_s(x, *, interpret=None):
    """perm4_2x4x8x16_3021_s(x f32[2, 4, 8, 16]) -> y f32[16, 2, 8, 4]."""
    return _run(_perm4_2x4x8x16_3021_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_3102_s

def _perm4_2x4x8x16_3102_s_y(x_ref, y_ref):
    # y[d, b, a, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (3, 1, 0, 2))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_3102_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 4, 2, 8), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_3102_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_3102_s(x f32[2, 4, 8, 16]) -> y f32[16, 4, 2, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_3102_s_y,
        out_shape=jax.ShapeDtypeStruct((16, 4, 2, 8), jnp.float32),
        grid_spec=_perm4_2x4x8x16_3102_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(16, 4, 2, 8)


_perm4_2x4x8x16_3102_s = jax.jit(perm4_2x4x8x16_3102_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_3102_s(x, *, interpret=None):
    """perm4_2x4x8x16_3102_s(x f32[2, 4, 8, 16]) -> y f32[16, 4, 2, 8]."""
    return _run(_perm4_2x4x8x16_3102_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_3120_s

def _perm4_2x4x8x16_3120_s_y(x_ref, y_ref):
    # y[d, b, c, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (3, 1, 2, 0))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_3120_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 4, 8, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_3120_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_3120_s(x f32[2, 4, 8, 16]) -> y f32[16, 4, 8, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_3120_s_y,
        out_shape=jax.ShapeDtypeStruct((16, 4, 8, 2), jnp.float32),
        grid_spec=_perm4_2x4x8x16_3120_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(16, 4, 8, 2)


_perm4_2x4x8x16_3120_s = jax.jit(perm4_2x4x8x16_3120_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_3120_s(x, *, interpret=None):
    """perm4_2x4x8x16_3120_s(x f32[2, 4, 8, 16]) -> y f32[16, 4, 8, 2]."""
    return _run(_perm4_2x4x8x16_3120_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_3201_s

def _perm4_2x4x8x16_3201_s_y(x_ref, y_ref):
    # y[d, c, a, b] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (3, 2, 0, 1))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_3201_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 8, 2, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_3201_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_3201_s(x f32[2, 4, 8, 16]) -> y f32[16, 8, 2, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_3201_s_y,
        out_shape=jax.ShapeDtypeStruct((16, 8, 2, 4), jnp.float32),
        grid_spec=_perm4_2x4x8x16_3201_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(16, 8, 2, 4)


_perm4_2x4x8x16_3201_s = jax.jit(perm4_2x4x8x16_3201_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_3201_s(x, *, interpret=None):
    """perm4_2x4x8x16_3201_s(x f32[2, 4, 8, 16]) -> y f32[16, 8, 2, 4]."""
    return _run(_perm4_2x4x8x16_3201_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_3210_s

def _perm4_2x4x8x16_3210_s_y(x_ref, y_ref):
    # y[d, c, b, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (3, 2, 1, 0))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_3210_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 8, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 8, 4, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_3210_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_3210_s(x f32[2, 4, 8, 16]) -> y f32[16, 8, 4, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_3210_s_y,
        out_shape=jax.ShapeDtypeStruct((16, 8, 4, 2), jnp.float32),
        grid_spec=_perm4_2x4x8x16_3210_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 8, 16))
    y = y.reshape(-1)
    return y.reshape(16, 8, 4, 2)


_perm4_2x4x8x16_3210_s = jax.jit(perm4_2x4x8x16_3210_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_3210_s(x, *, interpret=None):
    """perm4_2x4x8x16_3210_s(x f32[2, 4, 8, 16]) -> y f32[16, 8, 4, 2]."""
    return _run(_perm4_2x4x8x16_3210_s, (x,), interpret)


# ---- kernel perm4_1152x1152x2x4_0321

def _perm4_1152x1152x2x4_0321_y(x_ref, y_ref):
    # y[a, d, c, b] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    v0 = v0.reshape((1, 4, 2, 1152))
    out = jnp.broadcast_to(v0, (1, 4, 2, 1152))
    out = out.reshape((4, 2, 1152))
    y_ref[...] = out


_perm4_1152x1152x2x4_0321_y_grid = pl.GridSpec(
    grid=(1152,),
    in_specs=[
        pl.BlockSpec((None, 1152, 2, 4), lambda a: (a, np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((None, 4, 2, 1152), lambda a: (a, np.int32(0), np.int32(0), np.int32(0))))


def perm4_1152x1152x2x4_0321_pure(x, *, interpret=False):
    """Traceable perm4_1152x1152x2x4_0321(x f32[1152, 1152, 2, 4]) -> y f32[1152, 4, 2, 1152]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_1152x1152x2x4_0321_y,
        out_shape=jax.ShapeDtypeStruct((1152, 4, 2, 1152), jnp.float32),
        grid_spec=_perm4_1152x1152x2x4_0321_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(1152, 1152, 2, 4))
    y = y.reshape(-1)
    return y.reshape(1152, 4, 2, 1152)


_perm4_1152x1152x2x4_0321 = jax.jit(perm4_1152x1152x2x4_0321_pure, static_argnames="interpret")


def perm4_1152x1152x2x4_0321(x, *, interpret=None):
    """perm4_1152x1152x2x4_0321(x f32[1152, 1152, 2, 4]) -> y f32[1152, 4, 2, 1152]."""
    return _run(_perm4_1152x1152x2x4_0321, (x,), interpret)


# ---- kernel perm4_1152x1152x2x4_1302

def _perm4_1152x1152x2x4_1302_y(x_ref, y_ref):
    # y[b, d, a, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 0, 1))
    v0 = v0.reshape((1, 4, 1152, 2))
    out = jnp.broadcast_to(v0, (1, 4, 1152, 2))
    out = out.reshape((4, 1152, 2))
    y_ref[...] = out


_perm4_1152x1152x2x4_1302_y_grid = pl.GridSpec(
    grid=(1152,),
    in_specs=[
        pl.BlockSpec((1152, None, 2, 4), lambda b: (np.int32(0), b, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((None, 4, 1152, 2), lambda b: (b, np.int32(0), np.int32(0), np.int32(0))))


def perm4_1152x1152x2x4_1302_pure(x, *, interpret=False):
    """Traceable perm4_1152x1152x2x4_1302(x f32[1152, 1152, 2, 4]) -> y f32[1152, 4, 1152, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_1152x1152x2x4_1302_y,
        out_shape=jax.ShapeDtypeStruct((1152, 4, 1152, 2), jnp.float32),
        grid_spec=_perm4_1152x1152x2x4_1302_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(1152, 1152, 2, 4))
    y = y.reshape(-1)
    return y.reshape(1152, 4, 1152, 2)


_perm4_1152x1152x2x4_1302 = jax.jit(perm4_1152x1152x2x4_1302_pure, static_argnames="interpret")


def perm4_1152x1152x2x4_1302(x, *, interpret=None):
    """perm4_1152x1152x2x4_1302(x f32[1152, 1152, 2, 4]) -> y f32[1152, 4, 1152, 2]."""
    return _run(_perm4_1152x1152x2x4_1302, (x,), interpret)


# ---- kernel perm4_1152x1152x2x4_1320

def _perm4_1152x1152x2x4_1320_y(x_ref, y_ref):
    # y[b, d, c, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    v0 = v0.reshape((1, 4, 2, 1152))
    out = jnp.broadcast_to(v0, (1, 4, 2, 1152))
    out = out.reshape((4, 2, 1152))
    y_ref[...] = out


_perm4_1152x1152x2x4_1320_y_grid = pl.GridSpec(
    grid=(1152,),
    in_specs=[
        pl.BlockSpec((1152, None, 2, 4), lambda b: (np.int32(0), b, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((None, 4, 2, 1152), lambda b: (b, np.int32(0), np.int32(0), np.int32(0))))


def perm4_1152x1152x2x4_1320_pure(x, *, interpret=False):
    """Traceable perm4_1152x1152x2x4_1320(x f32[1152, 1152, 2, 4]) -> y f32[1152, 4, 2, 1152]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_1152x1152x2x4_1320_y,
        out_shape=jax.ShapeDtypeStruct((1152, 4, 2, 1152), jnp.float32),
        grid_spec=_perm4_1152x1152x2x4_1320_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(1152, 1152, 2, 4))
    y = y.reshape(-1)
    return y.reshape(1152, 4, 2, 1152)


_perm4_1152x1152x2x4_1320 = jax.jit(perm4_1152x1152x2x4_1320_pure, static_argnames="interpret")


def perm4_1152x1152x2x4_1320(x, *, interpret=None):
    """perm4_1152x1152x2x4_1320(x f32[1152, 1152, 2, 4]) -> y f32[1152, 4, 2, 1152]."""
    return _run(_perm4_1152x1152x2x4_1320, (x,), interpret)


# ---- kernel perm4_1152x1152x2x4_2310

def _perm4_1152x1152x2x4_2310_y(x_ref, y_ref):
    # y[c, d, b, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 2, 0))
    v0 = v0.reshape((2, 4, 1, 1152))
    out = jnp.broadcast_to(v0, (2, 4, 1, 1152))
    y_ref[...] = out


_perm4_1152x1152x2x4_2310_y_grid = pl.GridSpec(
    grid=(1152,),
    in_specs=[
        pl.BlockSpec((1152, None, 2, 4), lambda b: (np.int32(0), b, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 4, None, 1, 1152), lambda b: (np.int32(0), np.int32(0), b, np.int32(0), np.int32(0))))


def perm4_1152x1152x2x4_2310_pure(x, *, interpret=False):
    """Traceable perm4_1152x1152x2x4_2310(x f32[1152, 1152, 2, 4]) -> y f32[2, 4, 1152, 1152]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_1152x1152x2x4_2310_y,
        out_shape=jax.ShapeDtypeStruct((2, 4, 1152, 1, 1152), jnp.float32),
        grid_spec=_perm4_1152x1152x2x4_2310_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(1152, 1152, 2, 4))
    y = y.reshape(-1)
    return y.reshape(2, 4, 1152, 1152)


_perm4_1152x1152x2x4_2310 = jax.jit(perm4_1152x1152x2x4_2310_pure, static_argnames="interpret")


def perm4_1152x1152x2x4_2310(x, *, interpret=None):
    """perm4_1152x1152x2x4_2310(x f32[1152, 1152, 2, 4]) -> y f32[2, 4, 1152, 1152]."""
    return _run(_perm4_1152x1152x2x4_2310, (x,), interpret)


# ---- kernel perm4_1152x1152x2x4_3021

def _perm4_1152x1152x2x4_3021_y(x_ref, y_ref):
    # y[d, a, c, b] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    v0 = v0.reshape((4, 1, 2, 1152))
    out = jnp.broadcast_to(v0, (4, 1, 2, 1152))
    out = out.reshape((4, 2, 1152))
    y_ref[...] = out


_perm4_1152x1152x2x4_3021_y_grid = pl.GridSpec(
    grid=(1152,),
    in_specs=[
        pl.BlockSpec((None, 1152, 2, 4), lambda a: (a, np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, None, 2, 1152), lambda a: (np.int32(0), a, np.int32(0), np.int32(0))))


def perm4_1152x1152x2x4_3021_pure(x, *, interpret=False):
    """Traceable perm4_1152x1152x2x4_3021(x f32[1152, 1152, 2, 4]) -> y f32[4, 1152, 2, 1152]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_1152x1152x2x4_3021_y,
        out_shape=jax.ShapeDtypeStruct((4, 1152, 2, 1152), jnp.float32),
        grid_spec=_perm4_1152x1152x2x4_3021_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(1152, 1152, 2, 4))
    y = y.reshape(-1)
    return y.reshape(4, 1152, 2, 1152)


_perm4_1152x1152x2x4_3021 = jax.jit(perm4_1152x1152x2x4_3021_pure, static_argnames="interpret")


def perm4_1152x1152x2x4_3021(x, *, interpret=None):
    """perm4_1152x1152x2x4_3021(x f32[1152, 1152, 2, 4]) -> y f32[4, 1152, 2, 1152]."""
    return _run(_perm4_1152x1152x2x4_3021, (x,), interpret)


# ---- kernel perm4_1152x1152x2x4_3102

def _perm4_1152x1152x2x4_3102_y(x_ref, y_ref):
    # y[d, b, a, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 0, 1))
    v0 = v0.reshape((4, 1, 1152, 2))
    out = jnp.broadcast_to(v0, (4, 1, 1152, 2))
    out = out.reshape((4, 1152, 2))
    y_ref[...] = out


_perm4_1152x1152x2x4_3102_y_grid = pl.GridSpec(
    grid=(1152,),
    in_specs=[
        pl.BlockSpec((1152, None, 2, 4), lambda b: (np.int32(0), b, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, None, 1152, 2), lambda b: (np.int32(0), b, np.int32(0), np.int32(0))))


def perm4_1152x1152x2x4_3102_pure(x, *, interpret=False):
    """Traceable perm4_1152x1152x2x4_3102(x f32[1152, 1152, 2, 4]) -> y f32[4, 1152, 1152, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_1152x1152x2x4_3102_y,
        out_shape=jax.ShapeDtypeStruct((4, 1152, 1152, 2), jnp.float32),
        grid_spec=_perm4_1152x1152x2x4_3102_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(1152, 1152, 2, 4))
    y = y.reshape(-1)
    return y.reshape(4, 1152, 1152, 2)


_perm4_1152x1152x2x4_3102 = jax.jit(perm4_1152x1152x2x4_3102_pure, static_argnames="interpret")


def perm4_1152x1152x2x4_3102(x, *, interpret=None):
    """perm4_1152x1152x2x4_3102(x f32[1152, 1152, 2, 4]) -> y f32[4, 1152, 1152, 2]."""
    return _run(_perm4_1152x1152x2x4_3102, (x,), interpret)


# ---- kernel perm4_1152x1152x2x4_3120

def _perm4_1152x1152x2x4_3120_y(x_ref, y_ref):
    # y[d, b, c, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    v0 = v0.reshape((4, 1, 2, 1152))
    out = jnp.broadcast_to(v0, (4, 1, 2, 1152))
    out = out.reshape((4, 2, 1152))
    y_ref[...] = out


_perm4_1152x1152x2x4_3120_y_grid = pl.GridSpec(
    grid=(1152,),
    in_specs=[
        pl.BlockSpec((1152, None, 2, 4), lambda b: (np.int32(0), b, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, None, 2, 1152), lambda b: (np.int32(0), b, np.int32(0), np.int32(0))))


def perm4_1152x1152x2x4_3120_pure(x, *, interpret=False):
    """Traceable perm4_1152x1152x2x4_3120(x f32[1152, 1152, 2, 4]) -> y f32[4, 1152, 2, 1152]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_1152x1152x2x4_3120_y,
        out_shape=jax.ShapeDtypeStruct((4, 1152, 2, 1152), jnp.float32),
        grid_spec=_perm4_1152x1152x2x4_3120_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(1152, 1152, 2, 4))
    y = y.reshape(-1)
    return y.reshape(4, 1152, 2, 1152)


_perm4_1152x1152x2x4_3120 = jax.jit(perm4_1152x1152x2x4_3120_pure, static_argnames="interpret")


def perm4_1152x1152x2x4_3120(x, *, interpret=None):
    """perm4_1152x1152x2x4_3120(x f32[1152, 1152, 2, 4]) -> y f32[4, 1152, 2, 1152]."""
    return _run(_perm4_1152x1152x2x4_3120, (x,), interpret)


# ---- kernel perm4_1152x1152x2x4_3201

def _perm4_1152x1152x2x4_3201_y(x_ref, y_ref):
    # y[d, c, a, b] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    v0 = v0.reshape((4, 2, 1, 1152))
    out = jnp.broadcast_to(v0, (4, 2, 1, 1152))
    y_ref[...] = out


_perm4_1152x1152x2x4_3201_y_grid = pl.GridSpec(
    grid=(1152,),
    in_specs=[
        pl.BlockSpec((None, 1152, 2, 4), lambda a: (a, np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 2, None, 1, 1152), lambda a: (np.int32(0), np.int32(0), a, np.int32(0), np.int32(0))))


def perm4_1152x1152x2x4_3201_pure(x, *, interpret=False):
    """Traceable perm4_1152x1152x2x4_3201(x f32[1152, 1152, 2, 4]) -> y f32[4, 2, 1152, 1152]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_1152x1152x2x4_3201_y,
        out_shape=jax.ShapeDtypeStruct((4, 2, 1152, 1, 1152), jnp.float32),
        grid_spec=_perm4_1152x1152x2x4_3201_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(1152, 1152, 2, 4))
    y = y.reshape(-1)
    return y.reshape(4, 2, 1152, 1152)


_perm4_1152x1152x2x4_3201 = jax.jit(perm4_1152x1152x2x4_3201_pure, static_argnames="interpret")


def perm4_1152x1152x2x4_3201(x, *, interpret=None):
    """perm4_1152x1152x2x4_3201(x f32[1152, 1152, 2, 4]) -> y f32[4, 2, 1152, 1152]."""
    return _run(_perm4_1152x1152x2x4_3201, (x,), interpret)


# ---- kernel perm4_1152x1152x2x4_3210

def _perm4_1152x1152x2x4_3210_y(x_ref, y_ref):
    # y[d, c, b, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    v0 = v0.reshape((4, 2, 1, 1152))
    out = jnp.broadcast_to(v0, (4, 2, 1, 1152))
    y_ref[...] = out


_perm4_1152x1152x2x4_3210_y_grid = pl.GridSpec(
    grid=(1152,),
    in_specs=[
        pl.BlockSpec((1152, None, 2, 4), lambda b: (np.int32(0), b, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 2, None, 1, 1152), lambda b: (np.int32(0), np.int32(0), b, np.int32(0), np.int32(0))))


def perm4_1152x1152x2x4_3210_pure(x, *, interpret=False):
    """Traceable perm4_1152x1152x2x4_3210(x f32[1152, 1152, 2, 4]) -> y f32[4, 2, 1152, 1152]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_1152x1152x2x4_3210_y,
        out_shape=jax.ShapeDtypeStruct((4, 2, 1152, 1, 1152), jnp.float32),
        grid_spec=_perm4_1152x1152x2x4_3210_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(1152, 1152, 2, 4))
    y = y.reshape(-1)
    return y.reshape(4, 2, 1152, 1152)


_perm4_1152x1152x2x4_3210 = jax.jit(perm4_1152x1152x2x4_3210_pure, static_argnames="interpret")


def perm4_1152x1152x2x4_3210(x, *, interpret=None):
    """perm4_1152x1152x2x4_3210(x f32[1152, 1152, 2, 4]) -> y f32[4, 2, 1152, 1152]."""
    return _run(_perm4_1152x1152x2x4_3210, (x,), interpret)


# ---- kernel perm4_12x12x2x4_0321_s

def _perm4_12x12x2x4_0321_s_y(x_ref, y_ref):
    # y[a, d, c, b] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (0, 3, 2, 1))
    out = v0
    y_ref[...] = out


_perm4_12x12x2x4_0321_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((12, 12, 2, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((12, 4, 2, 12), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_12x12x2x4_0321_s_pure(x, *, interpret=False):
    """Traceable perm4_12x12x2x4_0321_s(x f32[12, 12, 2, 4]) -> y f32[12, 4, 2, 12]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_12x12x2x4_0321_s_y,
        out_shape=jax.ShapeDtypeStruct((12, 4, 2, 12), jnp.float32),
        grid_spec=_perm4_12x12x2x4_0321_s_y_grid,
        interpret=interpret,
    )(x.reshape(12, 12, 2, 4))
    y = y.reshape(-1)
    return y.reshape(12, 4, 2, 12)


_perm4_12x12x2x4_0321_s = jax.jit(perm4_12x12x2x4_0321_s_pure, static_argnames="interpret")


def perm4_12x12x2x4_0321_s(x, *, interpret=None):
    """perm4_12x12x2x4_0321_s(x f32[12, 12, 2, 4]) -> y f32[12, 4, 2, 12]."""
    return _run(_perm4_12x12x2x4_0321_s, (x,), interpret)


# ---- kernel perm4_12x12x2x4_1302_s

def _perm4_12x12x2x4_1302_s_y(x_ref, y_ref):
    # y[b, d, a, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 3, 0, 2))
    out = v0
    y_ref[...] = out


_perm4_12x12x2x4_1302_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((12, 12, 2, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((12, 4, 12, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_12x12x2x4_1302_s_pure(x, *, interpret=False):
    """Traceable perm4_12x12x2x4_1302_s(x f32[12, 12, 2, 4]) -> y f32[12, 4, 12, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_12x12x2x4_1302_s_y,
        out_shape=jax.ShapeDtypeStruct((12, 4, 12, 2), jnp.float32),
        grid_spec=_perm4_12x12x2x4_1302_s_y_grid,
        interpret=interpret,
    )(x.reshape(12, 12, 2, 4))
    y = y.reshape(-1)
    return y.reshape(12, 4, 12, 2)


_perm4_12x12x2x4_1302_s = jax.jit(perm4_12x12x2x4_1302_s_pure, static_argnames="interpret")


def perm4_12x12x2x4_1302_s(x, *, interpret=None):
    """perm4_12x12x2x4_1302_s(x f32[12, 12, 2, 4]) -> y f32[12, 4, 12, 2]."""
    return _run(_perm4_12x12x2x4_1302_s, (x,), interpret)


# ---- kernel perm4_12x12x2x4_1320_s

def _perm4_12x12x2x4_1320_s_y(x_ref, y_ref):
    # y[b, d, c, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 3, 2, 0))
    out = v0
    y_ref[...] = out


_perm4_12x12x2x4_1320_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((12, 12, 2, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((12, 4, 2, 12), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_12x12x2x4_1320_s_pure(x, *, interpret=False):
    """Traceable perm4_12x12x2x4_1320_s(x f32[12, 12, 2, 4]) -> y f32[12, 4, 2, 12]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_12x12x2x4_1320_s_y,
        out_shape=jax.ShapeDtypeStruct((12, 4, 2, 12), jnp.float32),
        grid_spec=_perm4_12x12x2x4_1320_s_y_grid,
        interpret=interpret,
    )(x.reshape(12, 12, 2, 4))
    y = y.reshape(-1)
    return y.reshape(12, 4, 2, 12)


_perm4_12x12x2x4_1320_s = jax.jit(perm4_12x12x2x4_1320_s_pure, static_argnames="interpret")


def perm4_12x12x2x4_1320_s(x, *, interpret=None):
    """perm4_12x12x2x4_1320_s(x f32[12, 12, 2, 4]) -> y f32[12, 4, 2, 12]."""
    return _run(_perm4_12x12x2x4_1320_s, (x,), interpret)


# ---- kernel perm4_12x12x2x4_2310_s

def _perm4_12x12x2x4_2310_s_y(x_ref, y_ref):
    # y[c, d, b, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 3, 1, 0))
    out = v0
    y_ref[...] = out


_perm4_12x12x2x4_2310_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((12, 12, 2, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 4, 12, 12), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_12x12x2x4_2310_s_pure(x, *, interpret=False):
    """Traceable perm4_12x12x2x4_2310_s(x f32[12, 12, 2, 4]) -> y f32[2, 4, 12, 12]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_12x12x2x4_2310_s_y,
        out_shape=jax.ShapeDtypeStruct((2, 4, 12, 12), jnp.float32),
        grid_spec=_perm4_12x12x2x4_2310_s_y_grid,
        interpret=interpret,
    )(x.reshape(12, 12, 2, 4))
    y = y.reshape(-1)
    return y.reshape(2, 4, 12, 12)


_perm4_12x12x2x4_2310_s = jax.jit(perm4_12x12x2x4_2310_s_pure, static_argnames="interpret")


def perm4_12x12x2x4_2310_s(x, *, interpret=None):
    """perm4_12x12x2x4_2310_s(x f32[12, 12, 2, 4]) -> y f32[2, 4, 12, 12]."""
    return _run(_perm4_12x12x2x4_2310_s, (x,), interpret)


# ---- kernel perm4_12x12x2x4_3021_s

def _perm4_12x12x2x4_3021_s_y(x_ref, y_ref):
    # y[d, a, c, b] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (3, 0, 2, 1))
    out = v0
    y_ref[...] = out


_perm4_12x12x2x4_3021_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((12, 12, 2, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 12, 2, 12), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_12x12x2x4_3021_s_pure(x, *, interpret=False):
    """Traceable perm4_12x12x2x4_3021_s(x f32[12, 12, 2, 4]) -> y f32[4, 12, 2, 12]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_12x12x2x4_3021_s_y,
        out_shape=jax.ShapeDtypeStruct((4, 12, 2, 12), jnp.float32),
        grid_spec=_perm4_12x12x2x4_3021_s_y_grid,
        interpret=interpret,
    )(x.reshape(12, 12, 2, 4))
    y = y.reshape(-1)
    return y.reshape(4, 12, 2, 12)


_perm4_12x12x2x4_3021_s = jax.jit(perm4_12x12x2x4_3021_s_pure, static_argnames="interpret")


def perm4_12x12x2x4_3021_s(x, *, interpret=None):
    """perm4_12x12x2x4_3021_s(x f32[12, 12, 2, 4]) -> y f32[4, 12, 2, 12]."""
    return _run(_perm4_12x12x2x4_3021_s, (x,), interpret)


# ---- kernel perm4_12x12x2x4_3102_s

def _perm4_12x12x2x4_3102_s_y(x_ref, y_ref):
    # y[d, b, a, c] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (3, 1, 0, 2))
    out = v0
    y_ref[...] = out


_perm4_12x12x2x4_3102_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((12, 12, 2, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 12, 12, 2), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_12x12x2x4_3102_s_pure(x, *, interpret=False):
    """Traceable perm4_12x12x2x4_3102_s(x f32[12, 12, 2, 4]) -> y f32[4, 12, 12, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_12x12x2x4_3102_s_y,
        out_shape=jax.ShapeDtypeStruct((4, 12, 12, 2), jnp.float32),
        grid_spec=_perm4_12x12x2x4_3102_s_y_grid,
        interpret=interpret,
    )(x.reshape(12, 12, 2, 4))
    y = y.reshape(-1)
    return y.reshape(4, 12, 12, 2)


_perm4_12x12x2x4_3102_s = jax.jit(perm4_12x12x2x4_3102_s_pure, static_argnames="interpret")


def perm4_12x12x2x4_3102_s(x, *, interpret=None):
    """perm4_12x12x2x4_3102_s(x f32[12, 12, 2, 4]) -> y f32[4, 12, 12, 2]."""
    return _run(_perm4_12x12x2x4_3102_s, (x,), interpret)


# ---- kernel perm4_12x12x2x4_3120_s

def _perm4_12x12x2x4_3120_s_y(x_ref, y_ref):
    # y[d, b, c, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (3, 1, 2, 0))
    out = v0
    y_ref[...] = out


_perm4_12x12x2x4_3120_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((12, 12, 2, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 12, 2, 12), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_12x12x2x4_3120_s_pure(x, *, interpret=False):
    """Traceable perm4_12x12x2x4_3120_s(x f32[12, 12, 2, 4]) -> y f32[4, 12, 2, 12]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_12x12x2x4_3120_s_y,
        out_shape=jax.ShapeDtypeStruct((4, 12, 2, 12), jnp.float32),
        grid_spec=_perm4_12x12x2x4_3120_s_y_grid,
        interpret=interpret,
    )(x.reshape(12, 12, 2, 4))
    y = y.reshape(-1)
    return y.reshape(4, 12, 2, 12)


_perm4_12x12x2x4_3120_s = jax.jit(perm4_12x12x2x4_3120_s_pure, static_argnames="interpret")


def perm4_12x12x2x4_3120_s(x, *, interpret=None):
    """perm4_12x12x2x4_3120_s(x f32[12, 12, 2, 4]) -> y f32[4, 12, 2, 12]."""
    return _run(_perm4_12x12x2x4_3120_s, (x,), interpret)


# ---- kernel perm4_12x12x2x4_3201_s

def _perm4_12x12x2x4_3201_s_y(x_ref, y_ref):
    # y[d, c, a, b] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (3, 2, 0, 1))
    out = v0
    y_ref[...] = out


_perm4_12x12x2x4_3201_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((12, 12, 2, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 2, 12, 12), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_12x12x2x4_3201_s_pure(x, *, interpret=False):
    """Traceable perm4_12x12x2x4_3201_s(x f32[12, 12, 2, 4]) -> y f32[4, 2, 12, 12]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_12x12x2x4_3201_s_y,
        out_shape=jax.ShapeDtypeStruct((4, 2, 12, 12), jnp.float32),
        grid_spec=_perm4_12x12x2x4_3201_s_y_grid,
        interpret=interpret,
    )(x.reshape(12, 12, 2, 4))
    y = y.reshape(-1)
    return y.reshape(4, 2, 12, 12)


_perm4_12x12x2x4_3201_s = jax.jit(perm4_12x12x2x4_3201_s_pure, static_argnames="interpret")


def perm4_12x12x2x4_3201_s(x, *, interpret=None):
    """perm4_12x12x2x4_3201_s(x f32[12, 12, 2, 4]) -> y f32[4, 2, 12, 12]."""
    return _run(_perm4_12x12x2x4_3201_s, (x,), interpret)


# ---- kernel perm4_12x12x2x4_3210_s

def _perm4_12x12x2x4_3210_s_y(x_ref, y_ref):
    # y[d, c, b, a] = x[a, b, c, d]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (3, 2, 1, 0))
    out = v0
    y_ref[...] = out


_perm4_12x12x2x4_3210_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((12, 12, 2, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 2, 12, 12), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def perm4_12x12x2x4_3210_s_pure(x, *, interpret=False):
    """Traceable perm4_12x12x2x4_3210_s(x f32[12, 12, 2, 4]) -> y f32[4, 2, 12, 12]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_12x12x2x4_3210_s_y,
        out_shape=jax.ShapeDtypeStruct((4, 2, 12, 12), jnp.float32),
        grid_spec=_perm4_12x12x2x4_3210_s_y_grid,
        interpret=interpret,
    )(x.reshape(12, 12, 2, 4))
    y = y.reshape(-1)
    return y.reshape(4, 2, 12, 12)


_perm4_12x12x2x4_3210_s = jax.jit(perm4_12x12x2x4_3210_s_pure, static_argnames="interpret")


def perm4_12x12x2x4_3210_s(x, *, interpret=None):
    """perm4_12x12x2x4_3210_s(x f32[12, 12, 2, 4]) -> y f32[4, 2, 12, 12]."""
    return _run(_perm4_12x12x2x4_3210_s, (x,), interpret)


# ---- kernel perm2_10000x2_flat

def _perm2_10000x2_flat_y(x_ref, y_ref):
    # y[i, j] = x.flat[((j * 2) + i)]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_perm2_10000x2_flat_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((10000, 2), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 10000), lambda _: (np.int32(0), np.int32(0))))


def perm2_10000x2_flat_pure(x, *, interpret=False):
    """Traceable perm2_10000x2_flat(x f32[10000, 2]) -> y f32[2, 10000]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm2_10000x2_flat_y,
        out_shape=jax.ShapeDtypeStruct((2, 10000), jnp.float32),
        grid_spec=_perm2_10000x2_flat_y_grid,
        compiler_params=pltpu.CompilerParams(vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(10000, 2))
    y = y.reshape(-1)
    return y.reshape(2, 10000)


_perm2_10000x2_flat = jax.jit(perm2_10000x2_flat_pure, static_argnames="interpret")


def perm2_10000x2_flat(x, *, interpret=None):
    """perm2_10000x2_flat(x f32[10000, 2]) -> y f32[2, 10000]."""
    return _run(_perm2_10000x2_flat, (x,), interpret)


# ---- kernel perm2_8x128_flat

def _perm2_8x128_flat_y(x_ref, y_ref):
    # y[i, j] = x.flat[((j * 128) + i)]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_perm2_8x128_flat_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 128), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((128, 8), lambda _: (np.int32(0), np.int32(0))))


def perm2_8x128_flat_pure(x, *, interpret=False):
    """Traceable perm2_8x128_flat(x f32[8, 128]) -> y f32[128, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm2_8x128_flat_y,
        out_shape=jax.ShapeDtypeStruct((128, 8), jnp.float32),
        grid_spec=_perm2_8x128_flat_y_grid,
        interpret=interpret,
    )(x.reshape(8, 128))
    y = y.reshape(-1)
    return y.reshape(128, 8)


_perm2_8x128_flat = jax.jit(perm2_8x128_flat_pure, static_argnames="interpret")


def perm2_8x128_flat(x, *, interpret=None):
    """perm2_8x128_flat(x f32[8, 128]) -> y f32[128, 8]."""
    return _run(_perm2_8x128_flat, (x,), interpret)


# ---- kernel perm3_2x1152x2048_201_flat

def _perm3_2x1152x2048_201_flat_y(x_ref, y_ref):
    # y[a, b, c] = x.flat[((a + (2048 * c)) + (2359296 * b))]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 0, 1))
    out = v0
    y_ref[...] = out


_perm3_2x1152x2048_201_flat_y_grid = pl.GridSpec(
    grid=(16,),
    in_specs=[
        pl.BlockSpec((2, 1152, 128), lambda a: (np.int32(0), np.int32(0), a))],
    out_specs=pl.BlockSpec((128, 2, 1152), lambda a: (a, np.int32(0), np.int32(0))))


def perm3_2x1152x2048_201_flat_pure(x, *, interpret=False):
    """Traceable perm3_2x1152x2048_201_flat(x f32[2, 1152, 2048]) -> y f32[2048, 2, 1152]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x1152x2048_201_flat_y,
        out_shape=jax.ShapeDtypeStruct((2048, 2, 1152), jnp.float32),
        grid_spec=_perm3_2x1152x2048_201_flat_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 1152, 2048))
    y = y.reshape(-1)
    return y.reshape(2048, 2, 1152)


_perm3_2x1152x2048_201_flat = jax.jit(perm3_2x1152x2048_201_flat_pure, static_argnames="interpret")


def perm3_2x1152x2048_201_flat(x, *, interpret=None):
    """perm3_2x1152x2048_201_flat(x f32[2, 1152, 2048]) -> y f32[2048, 2, 1152]."""
    return _run(_perm3_2x1152x2048_201_flat, (x,), interpret)


# ---- kernel perm3_2x1152x2048_201_collapsed

def _perm3_2x1152x2048_201_collapsed_y(x_ref, y_ref):
    # y[a, m] = x.flat[((m * 2048) + a)]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_perm3_2x1152x2048_201_collapsed_y_grid = pl.GridSpec(
    grid=(6,),
    in_specs=[
        pl.BlockSpec((2304, 384), lambda a: (np.int32(0), a))],
    out_specs=pl.BlockSpec((384, 2304), lambda a: (a, np.int32(0))))


def perm3_2x1152x2048_201_collapsed_pure(x, *, interpret=False):
    """Traceable perm3_2x1152x2048_201_collapsed(x f32[2, 1152, 2048]) -> y f32[2048, 2304]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x1152x2048_201_collapsed_y,
        out_shape=jax.ShapeDtypeStruct((2048, 2304), jnp.float32),
        grid_spec=_perm3_2x1152x2048_201_collapsed_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2304, 2048))
    y = y.reshape(-1)
    return y.reshape(2048, 2304)


_perm3_2x1152x2048_201_collapsed = jax.jit(perm3_2x1152x2048_201_collapsed_pure, static_argnames="interpret")


def perm3_2x1152x2048_201_collapsed(x, *, interpret=None):
    """perm3_2x1152x2048_201_collapsed(x f32[2, 1152, 2048]) -> y f32[2048, 2304]."""
    return _run(_perm3_2x1152x2048_201_collapsed, (x,), interpret)


# ---- kernel perm3_2x1152x2048_120_collapsed

def _perm3_2x1152x2048_120_collapsed_y(x_ref, y_ref):
    # y[m, a] = x.flat[((a * 2359296) + m)]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_perm3_2x1152x2048_120_collapsed_y_grid = pl.GridSpec(
    grid=(154,),
    in_specs=[
        pl.BlockSpec((2, 15360), lambda m: (np.int32(0), m))],
    out_specs=pl.BlockSpec((15360, 2), lambda m: (m, np.int32(0))))


def perm3_2x1152x2048_120_collapsed_pure(x, *, interpret=False):
    """Traceable perm3_2x1152x2048_120_collapsed(x f32[2, 1152, 2048]) -> y f32[2359296, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x1152x2048_120_collapsed_y,
        out_shape=jax.ShapeDtypeStruct((2359296, 2), jnp.float32),
        grid_spec=_perm3_2x1152x2048_120_collapsed_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 2359296))
    y = y.reshape(-1)
    return y.reshape(2359296, 2)


_perm3_2x1152x2048_120_collapsed = jax.jit(perm3_2x1152x2048_120_collapsed_pure, static_argnames="interpret")


def perm3_2x1152x2048_120_collapsed(x, *, interpret=None):
    """perm3_2x1152x2048_120_collapsed(x f32[2, 1152, 2048]) -> y f32[2359296, 2]."""
    return _run(_perm3_2x1152x2048_120_collapsed, (x,), interpret)


# ---- kernel perm3_2x1152x2048_120_divmod

def _perm3_2x1152x2048_120_divmod_y_x(x):
    """x.flat[(((i % 2) * 2359296) + (i // 2))] over (4718592,), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(2, 2359296)
    a = jnp.transpose(a, (1, 0))
    a = a.reshape(4718592,)
    return a


def _perm3_2x1152x2048_120_divmod_y(x_ref, y_ref):
    # y[i] = x.flat[(((i % 2) * 2359296) + (i // 2))]
    v0 = x_ref[...][0, :]
    out = v0
    out = out.reshape((1, 419328))
    y_ref[...] = out


_perm3_2x1152x2048_120_divmod_y_grid = pl.GridSpec(
    grid=(12,),
    in_specs=[
        pl.BlockSpec((None, 1, 419328), lambda i: (i, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((None, 1, 419328), lambda i: (i, np.int32(0), np.int32(0))))


def perm3_2x1152x2048_120_divmod_pure(x, *, interpret=False):
    """Traceable perm3_2x1152x2048_120_divmod(x f32[2, 1152, 2048]) -> y f32[4718592]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x1152x2048_120_divmod_y,
        out_shape=jax.ShapeDtypeStruct((12, 1, 419328), jnp.float32),
        grid_spec=_perm3_2x1152x2048_120_divmod_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(_pad(_perm3_2x1152x2048_120_divmod_y_x(x), 5031936).reshape(12, 1, 419328))
    y = y.reshape(-1)[:4718592]
    return y.reshape(4718592)


_perm3_2x1152x2048_120_divmod = jax.jit(perm3_2x1152x2048_120_divmod_pure, static_argnames="interpret")


def perm3_2x1152x2048_120_divmod(x, *, interpret=None):
    """perm3_2x1152x2048_120_divmod(x f32[2, 1152, 2048]) -> y f32[4718592]."""
    return _run(_perm3_2x1152x2048_120_divmod, (x,), interpret)


# ---- kernel perm3_2x24x32_201_flat_s

def _perm3_2x24x32_201_flat_s_y(x_ref, y_ref):
    # y[a, b, c] = x.flat[((a + (32 * c)) + (768 * b))]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 0, 1))
    out = v0
    y_ref[...] = out


_perm3_2x24x32_201_flat_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 24, 32), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((32, 2, 24), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_2x24x32_201_flat_s_pure(x, *, interpret=False):
    """Traceable perm3_2x24x32_201_flat_s(x f32[2, 24, 32]) -> y f32[32, 2, 24]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x24x32_201_flat_s_y,
        out_shape=jax.ShapeDtypeStruct((32, 2, 24), jnp.float32),
        grid_spec=_perm3_2x24x32_201_flat_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 24, 32))
    y = y.reshape(-1)
    return y.reshape(32, 2, 24)


_perm3_2x24x32_201_flat_s = jax.jit(perm3_2x24x32_201_flat_s_pure, static_argnames="interpret")


def perm3_2x24x32_201_flat_s(x, *, interpret=None):
    """perm3_2x24x32_201_flat_s(x f32[2, 24, 32]) -> y f32[32, 2, 24]."""
    return _run(_perm3_2x24x32_201_flat_s, (x,), interpret)


# ---- kernel perm3_2x24x32_201_collapsed_s

def _perm3_2x24x32_201_collapsed_s_y(x_ref, y_ref):
    # y[a, m] = x.flat[((m * 32) + a)]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_perm3_2x24x32_201_collapsed_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((48, 32), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((32, 48), lambda _: (np.int32(0), np.int32(0))))


def perm3_2x24x32_201_collapsed_s_pure(x, *, interpret=False):
    """Traceable perm3_2x24x32_201_collapsed_s(x f32[2, 24, 32]) -> y f32[32, 48]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x24x32_201_collapsed_s_y,
        out_shape=jax.ShapeDtypeStruct((32, 48), jnp.float32),
        grid_spec=_perm3_2x24x32_201_collapsed_s_y_grid,
        interpret=interpret,
    )(x.reshape(48, 32))
    y = y.reshape(-1)
    return y.reshape(32, 48)


_perm3_2x24x32_201_collapsed_s = jax.jit(perm3_2x24x32_201_collapsed_s_pure, static_argnames="interpret")


def perm3_2x24x32_201_collapsed_s(x, *, interpret=None):
    """perm3_2x24x32_201_collapsed_s(x f32[2, 24, 32]) -> y f32[32, 48]."""
    return _run(_perm3_2x24x32_201_collapsed_s, (x,), interpret)


# ---- kernel perm3_2x24x32_120_collapsed_s

def _perm3_2x24x32_120_collapsed_s_y(x_ref, y_ref):
    # y[m, a] = x.flat[((a * 768) + m)]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_perm3_2x24x32_120_collapsed_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 768), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((768, 2), lambda _: (np.int32(0), np.int32(0))))


def perm3_2x24x32_120_collapsed_s_pure(x, *, interpret=False):
    """Traceable perm3_2x24x32_120_collapsed_s(x f32[2, 24, 32]) -> y f32[768, 2]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x24x32_120_collapsed_s_y,
        out_shape=jax.ShapeDtypeStruct((768, 2), jnp.float32),
        grid_spec=_perm3_2x24x32_120_collapsed_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 768))
    y = y.reshape(-1)
    return y.reshape(768, 2)


_perm3_2x24x32_120_collapsed_s = jax.jit(perm3_2x24x32_120_collapsed_s_pure, static_argnames="interpret")


def perm3_2x24x32_120_collapsed_s(x, *, interpret=None):
    """perm3_2x24x32_120_collapsed_s(x f32[2, 24, 32]) -> y f32[768, 2]."""
    return _run(_perm3_2x24x32_120_collapsed_s, (x,), interpret)


# ---- kernel perm3_2x24x32_120_divmod_s

def _perm3_2x24x32_120_divmod_s_y_x(x):
    """x.flat[(((i % 2) * 768) + (i // 2))] over (1536,), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(2, 768)
    a = jnp.transpose(a, (1, 0))
    a = a.reshape(1536,)
    return a


def _perm3_2x24x32_120_divmod_s_y(x_ref, y_ref):
    # y[i] = x.flat[(((i % 2) * 768) + (i // 2))]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_perm3_2x24x32_120_divmod_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((1536,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((1536,), lambda _: (np.int32(0),)))


def perm3_2x24x32_120_divmod_s_pure(x, *, interpret=False):
    """Traceable perm3_2x24x32_120_divmod_s(x f32[2, 24, 32]) -> y f32[1536]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_2x24x32_120_divmod_s_y,
        out_shape=jax.ShapeDtypeStruct((1536,), jnp.float32),
        grid_spec=_perm3_2x24x32_120_divmod_s_y_grid,
        interpret=interpret,
    )(_perm3_2x24x32_120_divmod_s_y_x(x))
    return y.reshape(1536)


_perm3_2x24x32_120_divmod_s = jax.jit(perm3_2x24x32_120_divmod_s_pure, static_argnames="interpret")


def perm3_2x24x32_120_divmod_s(x, *, interpret=None):
    """perm3_2x24x32_120_divmod_s(x f32[2, 24, 32]) -> y f32[1536]."""
    return _run(_perm3_2x24x32_120_divmod_s, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_2301_collapsed

def _perm4_2x4x128x2048_2301_collapsed_y(x_ref, y_ref):
    # y[m, n] = x.flat[((n * 262144) + m)]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_perm4_2x4x128x2048_2301_collapsed_y_grid = pl.GridSpec(
    grid=(18,),
    in_specs=[
        pl.BlockSpec((8, 15360), lambda m: (np.int32(0), m))],
    out_specs=pl.BlockSpec((15360, 8), lambda m: (m, np.int32(0))))


def perm4_2x4x128x2048_2301_collapsed_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_2301_collapsed(x f32[2, 4, 128, 2048]) -> y f32[262144, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_2301_collapsed_y,
        out_shape=jax.ShapeDtypeStruct((262144, 8), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_2301_collapsed_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(8, 262144))
    y = y.reshape(-1)
    return y.reshape(262144, 8)


_perm4_2x4x128x2048_2301_collapsed = jax.jit(perm4_2x4x128x2048_2301_collapsed_pure, static_argnames="interpret")


def perm4_2x4x128x2048_2301_collapsed(x, *, interpret=None):
    """perm4_2x4x128x2048_2301_collapsed(x f32[2, 4, 128, 2048]) -> y f32[262144, 8]."""
    return _run(_perm4_2x4x128x2048_2301_collapsed, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_0312_collapsed

def _perm4_2x4x128x2048_0312_collapsed_y(x_ref, y_ref):
    # y[a, d, m] = x.flat[(((a * 1048576) + (m * 2048)) + d)]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v0 = v0.reshape((1, 2048, 512))
    out = jnp.broadcast_to(v0, (1, 2048, 512))
    out = out.reshape((2048, 512))
    y_ref[...] = out


_perm4_2x4x128x2048_0312_collapsed_y_grid = pl.GridSpec(
    grid=(2,),
    in_specs=[
        pl.BlockSpec((None, 512, 2048), lambda a: (a, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((None, 2048, 512), lambda a: (a, np.int32(0), np.int32(0))))


def perm4_2x4x128x2048_0312_collapsed_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_0312_collapsed(x f32[2, 4, 128, 2048]) -> y f32[2, 2048, 512]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_0312_collapsed_y,
        out_shape=jax.ShapeDtypeStruct((2, 2048, 512), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_0312_collapsed_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 512, 2048))
    y = y.reshape(-1)
    return y.reshape(2, 2048, 512)


_perm4_2x4x128x2048_0312_collapsed = jax.jit(perm4_2x4x128x2048_0312_collapsed_pure, static_argnames="interpret")


def perm4_2x4x128x2048_0312_collapsed(x, *, interpret=None):
    """perm4_2x4x128x2048_0312_collapsed(x f32[2, 4, 128, 2048]) -> y f32[2, 2048, 512]."""
    return _run(_perm4_2x4x128x2048_0312_collapsed, (x,), interpret)


# ---- kernel perm4_2x4x128x2048_1023_collapsed

def _perm4_2x4x128x2048_1023_collapsed_y(x_ref, y_ref):
    # y[b, a, m] = x.flat[(((a * 1048576) + (b * 262144)) + m)]
    v0 = x_ref[...][0, :]
    v0 = v0.reshape((1, 1, 131072))
    out = jnp.broadcast_to(v0, (1, 1, 131072))
    out = out.reshape((1, 131072))
    y_ref[...] = out


_perm4_2x4x128x2048_1023_collapsed_y_grid = pl.GridSpec(
    grid=(4, 2, 2),
    in_specs=[
        pl.BlockSpec((None, None, 1, 131072), lambda b, a, m: (a, b, np.int32(0), m))],
    out_specs=pl.BlockSpec((None, None, 1, 131072), lambda b, a, m: (b, a, np.int32(0), m)))


def perm4_2x4x128x2048_1023_collapsed_pure(x, *, interpret=False):
    """Traceable perm4_2x4x128x2048_1023_collapsed(x f32[2, 4, 128, 2048]) -> y f32[4, 2, 262144]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x128x2048_1023_collapsed_y,
        out_shape=jax.ShapeDtypeStruct((4, 2, 1, 262144), jnp.float32),
        grid_spec=_perm4_2x4x128x2048_1023_collapsed_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "parallel"), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(2, 4, 1, 262144))
    y = y.reshape(-1)
    return y.reshape(4, 2, 262144)


_perm4_2x4x128x2048_1023_collapsed = jax.jit(perm4_2x4x128x2048_1023_collapsed_pure, static_argnames="interpret")


def perm4_2x4x128x2048_1023_collapsed(x, *, interpret=None):
    """perm4_2x4x128x2048_1023_collapsed(x f32[2, 4, 128, 2048]) -> y f32[4, 2, 262144]."""
    return _run(_perm4_2x4x128x2048_1023_collapsed, (x,), interpret)


# ---- kernel perm4_2x4x8x16_2301_collapsed_s

def _perm4_2x4x8x16_2301_collapsed_s_y(x_ref, y_ref):
    # y[m, n] = x.flat[((n * 128) + m)]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_2301_collapsed_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 128), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((128, 8), lambda _: (np.int32(0), np.int32(0))))


def perm4_2x4x8x16_2301_collapsed_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_2301_collapsed_s(x f32[2, 4, 8, 16]) -> y f32[128, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_2301_collapsed_s_y,
        out_shape=jax.ShapeDtypeStruct((128, 8), jnp.float32),
        grid_spec=_perm4_2x4x8x16_2301_collapsed_s_y_grid,
        interpret=interpret,
    )(x.reshape(8, 128))
    y = y.reshape(-1)
    return y.reshape(128, 8)


_perm4_2x4x8x16_2301_collapsed_s = jax.jit(perm4_2x4x8x16_2301_collapsed_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_2301_collapsed_s(x, *, interpret=None):
    """perm4_2x4x8x16_2301_collapsed_s(x f32[2, 4, 8, 16]) -> y f32[128, 8]."""
    return _run(_perm4_2x4x8x16_2301_collapsed_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_0312_collapsed_s

def _perm4_2x4x8x16_0312_collapsed_s_y(x_ref, y_ref):
    # y[a, d, m] = x.flat[(((a * 512) + (m * 16)) + d)]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (0, 2, 1))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_0312_collapsed_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 32, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 16, 32), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_0312_collapsed_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_0312_collapsed_s(x f32[2, 4, 8, 16]) -> y f32[2, 16, 32]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_0312_collapsed_s_y,
        out_shape=jax.ShapeDtypeStruct((2, 16, 32), jnp.float32),
        grid_spec=_perm4_2x4x8x16_0312_collapsed_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 32, 16))
    y = y.reshape(-1)
    return y.reshape(2, 16, 32)


_perm4_2x4x8x16_0312_collapsed_s = jax.jit(perm4_2x4x8x16_0312_collapsed_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_0312_collapsed_s(x, *, interpret=None):
    """perm4_2x4x8x16_0312_collapsed_s(x f32[2, 4, 8, 16]) -> y f32[2, 16, 32]."""
    return _run(_perm4_2x4x8x16_0312_collapsed_s, (x,), interpret)


# ---- kernel perm4_2x4x8x16_1023_collapsed_s

def _perm4_2x4x8x16_1023_collapsed_s_y(x_ref, y_ref):
    # y[b, a, m] = x.flat[(((a * 512) + (b * 128)) + m)]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0, 2))
    out = v0
    y_ref[...] = out


_perm4_2x4x8x16_1023_collapsed_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 128), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 2, 128), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm4_2x4x8x16_1023_collapsed_s_pure(x, *, interpret=False):
    """Traceable perm4_2x4x8x16_1023_collapsed_s(x f32[2, 4, 8, 16]) -> y f32[4, 2, 128]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_2x4x8x16_1023_collapsed_s_y,
        out_shape=jax.ShapeDtypeStruct((4, 2, 128), jnp.float32),
        grid_spec=_perm4_2x4x8x16_1023_collapsed_s_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 128))
    y = y.reshape(-1)
    return y.reshape(4, 2, 128)


_perm4_2x4x8x16_1023_collapsed_s = jax.jit(perm4_2x4x8x16_1023_collapsed_s_pure, static_argnames="interpret")


def perm4_2x4x8x16_1023_collapsed_s(x, *, interpret=None):
    """perm4_2x4x8x16_1023_collapsed_s(x f32[2, 4, 8, 16]) -> y f32[4, 2, 128]."""
    return _run(_perm4_2x4x8x16_1023_collapsed_s, (x,), interpret)


# ---- kernel perm4_1152x1152x2x4_3201_collapsed

def _perm4_1152x1152x2x4_3201_collapsed_y(x_ref, y_ref):
    # y[d, c, m] = x.flat[(((m * 8) + (c * 4)) + d)]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    out = v0
    y_ref[...] = out


_perm4_1152x1152x2x4_3201_collapsed_y_grid = pl.GridSpec(
    grid=(692,),
    in_specs=[
        pl.BlockSpec((1920, 2, 4), lambda m: (m, np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 2, 1920), lambda m: (np.int32(0), np.int32(0), m)))


def perm4_1152x1152x2x4_3201_collapsed_pure(x, *, interpret=False):
    """Traceable perm4_1152x1152x2x4_3201_collapsed(x f32[1152, 1152, 2, 4]) -> y f32[4, 2, 1327104]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_1152x1152x2x4_3201_collapsed_y,
        out_shape=jax.ShapeDtypeStruct((4, 2, 1327104), jnp.float32),
        grid_spec=_perm4_1152x1152x2x4_3201_collapsed_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=100 * 2**20),
        interpret=interpret,
    )(x.reshape(1327104, 2, 4))
    y = y.reshape(-1)
    return y.reshape(4, 2, 1327104)


_perm4_1152x1152x2x4_3201_collapsed = jax.jit(perm4_1152x1152x2x4_3201_collapsed_pure, static_argnames="interpret")


def perm4_1152x1152x2x4_3201_collapsed(x, *, interpret=None):
    """perm4_1152x1152x2x4_3201_collapsed(x f32[1152, 1152, 2, 4]) -> y f32[4, 2, 1327104]."""
    return _run(_perm4_1152x1152x2x4_3201_collapsed, (x,), interpret)


# ---- kernel perm4_12x12x2x4_3201_collapsed_s

def _perm4_12x12x2x4_3201_collapsed_s_y(x_ref, y_ref):
    # y[d, c, m] = x.flat[(((m * 8) + (c * 4)) + d)]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 1, 0))
    out = v0
    y_ref[...] = out


_perm4_12x12x2x4_3201_collapsed_s_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((144, 2, 4), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 2, 144), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm4_12x12x2x4_3201_collapsed_s_pure(x, *, interpret=False):
    """Traceable perm4_12x12x2x4_3201_collapsed_s(x f32[12, 12, 2, 4]) -> y f32[4, 2, 144]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm4_12x12x2x4_3201_collapsed_s_y,
        out_shape=jax.ShapeDtypeStruct((4, 2, 144), jnp.float32),
        grid_spec=_perm4_12x12x2x4_3201_collapsed_s_y_grid,
        interpret=interpret,
    )(x.reshape(144, 2, 4))
    y = y.reshape(-1)
    return y.reshape(4, 2, 144)


_perm4_12x12x2x4_3201_collapsed_s = jax.jit(perm4_12x12x2x4_3201_collapsed_s_pure, static_argnames="interpret")


def perm4_12x12x2x4_3201_collapsed_s(x, *, interpret=None):
    """perm4_12x12x2x4_3201_collapsed_s(x f32[12, 12, 2, 4]) -> y f32[4, 2, 144]."""
    return _run(_perm4_12x12x2x4_3201_collapsed_s, (x,), interpret)


# ---- kernel perm3_1x8x1_120

def _perm3_1x8x1_120_y(x_ref, y_ref):
    # y[b, c, a] = x[a, b, c]
    v0 = x_ref[...]
    v0 = v0.reshape((8, 1, 1))
    out = jnp.broadcast_to(v0, (8, 1, 1))
    out = out.reshape((8,))
    y_ref[...] = out


_perm3_1x8x1_120_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((8,), lambda _: (np.int32(0),)))


def perm3_1x8x1_120_pure(x, *, interpret=False):
    """Traceable perm3_1x8x1_120(x f32[1, 8, 1]) -> y f32[8, 1, 1]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_1x8x1_120_y,
        out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
        grid_spec=_perm3_1x8x1_120_y_grid,
        interpret=interpret,
    )(x)
    return y.reshape(8, 1, 1)


_perm3_1x8x1_120 = jax.jit(perm3_1x8x1_120_pure, static_argnames="interpret")


def perm3_1x8x1_120(x, *, interpret=None):
    """perm3_1x8x1_120(x f32[1, 8, 1]) -> y f32[8, 1, 1]."""
    return _run(_perm3_1x8x1_120, (x,), interpret)


# ---- kernel perm2_0x8


def perm2_0x8_pure(x, *, interpret=False):
    """Traceable perm2_0x8(x f32[0, 8]) -> y f32[8, 0]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = jnp.zeros((0,), jnp.float32)  # no elements
    return y.reshape(8, 0)


_perm2_0x8 = jax.jit(perm2_0x8_pure, static_argnames="interpret")


def perm2_0x8(x, *, interpret=None):
    """perm2_0x8(x f32[0, 8]) -> y f32[8, 0]."""
    return _run(_perm2_0x8, (x,), interpret)


# ---- kernel perm3_3x0x5_201


def perm3_3x0x5_201_pure(x, *, interpret=False):
    """Traceable perm3_3x0x5_201(x f32[3, 0, 5]) -> y f32[5, 3, 0]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = jnp.zeros((0,), jnp.float32)  # no elements
    return y.reshape(5, 3, 0)


_perm3_3x0x5_201 = jax.jit(perm3_3x0x5_201_pure, static_argnames="interpret")


def perm3_3x0x5_201(x, *, interpret=None):
    """perm3_3x0x5_201(x f32[3, 0, 5]) -> y f32[5, 3, 0]."""
    return _run(_perm3_3x0x5_201, (x,), interpret)


# ---- kernel perm3_sym_201

def _perm3_sym_201_y(x_ref, y_ref):
    # y[c, a, b] = x[a, b, c]
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (2, 0, 1))
    out = v0
    y_ref[...] = out


_perm3_sym_201_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 16, 24), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((24, 4, 16), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def perm3_sym_201_pure(x, *, interpret=False):
    """Traceable perm3_sym_201(x f32[4, 16, 24]) -> y f32[24, 4, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _perm3_sym_201_y,
        out_shape=jax.ShapeDtypeStruct((24, 4, 16), jnp.float32),
        grid_spec=_perm3_sym_201_y_grid,
        interpret=interpret,
    )(x.reshape(4, 16, 24))
    y = y.reshape(-1)
    return y.reshape(24, 4, 16)


_perm3_sym_201 = jax.jit(perm3_sym_201_pure, static_argnames="interpret")


def perm3_sym_201(x, *, interpret=None):
    """perm3_sym_201(x f32[4, 16, 24]) -> y f32[24, 4, 16]."""
    return _run(_perm3_sym_201, (x,), interpret)
