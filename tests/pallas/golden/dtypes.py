"""Pallas kernels of examples/dtypes.ath, emitted by athene (target pallas). Do not edit.

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


# ---- kernel not_bool_strided

def _not_bool_strided_y(x_ref, y_ref):
    # y[i] = !x[i]
    v0 = x_ref[...][:, 0]
    v1 = ~v0
    out = v1
    y_ref[...] = out


_not_bool_strided_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 2), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16,), lambda _: (np.int32(0),)))


def not_bool_strided_pure(x, *, interpret=False):
    """Traceable not_bool_strided(x bool[16] (storage of 31)) -> y bool[16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _not_bool_strided_y,
        out_shape=jax.ShapeDtypeStruct((16,), jnp.bool_),
        grid_spec=_not_bool_strided_y_grid,
        interpret=interpret,
    )(_pad(x, 32).reshape(16, 2))
    return y.reshape(16)


_not_bool_strided = jax.jit(not_bool_strided_pure, static_argnames="interpret")


def not_bool_strided(x, *, interpret=None):
    """not_bool_strided(x bool[16] (storage of 31)) -> y bool[16]."""
    return _run(_not_bool_strided, (x,), interpret)


# ---- kernel where_mask

def _where_mask_y(m_ref, x_ref, y_ref):
    # y[i, j] = where(m[i, j], x[i, j], 0)
    v0 = m_ref[...]
    v1 = x_ref[...]
    v5 = jnp.where(v0, v1, jnp.float32(0))
    out = v5
    y_ref[...] = out


_where_mask_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 8), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((4, 8), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 8), lambda _: (np.int32(0), np.int32(0))))


def where_mask_pure(m, x, *, interpret=False):
    """Traceable where_mask(m bool[4, 8], x f32[4, 8]) -> y f32[4, 8]."""
    m = jnp.asarray(m).reshape(-1)
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _where_mask_y,
        out_shape=jax.ShapeDtypeStruct((4, 8), jnp.float32),
        grid_spec=_where_mask_y_grid,
        interpret=interpret,
    )(m.reshape(4, 8), x.reshape(4, 8))
    y = y.reshape(-1)
    return y.reshape(4, 8)


_where_mask = jax.jit(where_mask_pure, static_argnames="interpret")


def where_mask(m, x, *, interpret=None):
    """where_mask(m bool[4, 8], x f32[4, 8]) -> y f32[4, 8]."""
    return _run(_where_mask, (m, x), interpret)


# ---- kernel greater_bool_out

def _greater_bool_out_y(x_ref, t_ref, y_ref):
    # y[i, j] = (x[i, j] > t)
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v1 = t_ref[...][0]
    v1 = v1.reshape((1, 1))
    v2 = v0 > v1
    out = v2
    y_ref[...] = out


_greater_bool_out_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 4), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((1,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((4, 8), lambda _: (np.int32(0), np.int32(0))))


def greater_bool_out_pure(x, t, *, interpret=False):
    """Traceable greater_bool_out(x f32[4, 8] (storage of 32), t f32[]) -> y bool[4, 8]."""
    x = jnp.asarray(x).reshape(-1)
    t = jnp.asarray(t).reshape(-1)
    # y
    y = pl.pallas_call(
        _greater_bool_out_y,
        out_shape=jax.ShapeDtypeStruct((4, 8), jnp.bool_),
        grid_spec=_greater_bool_out_y_grid,
        interpret=interpret,
    )(x.reshape(8, 4), t)
    y = y.reshape(-1)
    return y.reshape(4, 8)


_greater_bool_out = jax.jit(greater_bool_out_pure, static_argnames="interpret")


def greater_bool_out(x, t, *, interpret=None):
    """greater_bool_out(x f32[4, 8] (storage of 32), t f32[]) -> y bool[4, 8]."""
    return _run(_greater_bool_out, (x, t), interpret)


# ---- kernel flip_i8

def _flip_i8_y_x(x):
    """x[(15 - i)] over (16,), in XLA: Mosaic has no i8 vectors."""
    a = x
    a = a[15::-1]
    return a


def _flip_i8_y(x_ref):
    # y[i] = (x[(15 - i)] * 2)
    v0 = x_ref[...]
    v3 = v0 * jnp.int8(2)
    return jnp.broadcast_to(v3, (16,)).reshape(-1).astype(jnp.int8)


def flip_i8_pure(x, *, interpret=False):
    """Traceable flip_i8(x i8[16]) -> y i8[16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    # in XLA: Mosaic has no i8 vectors
    y = _flip_i8_y(_flip_i8_y_x(x))
    return y.reshape(16)


_flip_i8 = jax.jit(flip_i8_pure, static_argnames="interpret")


def flip_i8(x, *, interpret=None):
    """flip_i8(x i8[16]) -> y i8[16]."""
    return _run(_flip_i8, (x,), interpret)


# ---- kernel transpose_i16

def _transpose_i16_y(x_ref, y_ref):
    # y[j, i] = (x[i, j] + 1)
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v3 = v0 + jnp.int16(1)
    out = v3
    y_ref[...] = out


_transpose_i16_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((6, 10), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((10, 6), lambda _: (np.int32(0), np.int32(0))))


def transpose_i16_pure(x, *, interpret=False):
    """Traceable transpose_i16(x i16[6, 10]) -> y i16[10, 6]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _transpose_i16_y,
        out_shape=jax.ShapeDtypeStruct((10, 6), jnp.int16),
        grid_spec=_transpose_i16_y_grid,
        interpret=interpret,
    )(x.reshape(6, 10))
    y = y.reshape(-1)
    return y.reshape(10, 6)


_transpose_i16 = jax.jit(transpose_i16_pure, static_argnames="interpret")


def transpose_i16(x, *, interpret=None):
    """transpose_i16(x i16[6, 10]) -> y i16[10, 6]."""
    return _run(_transpose_i16, (x,), interpret)


# ---- kernel strided_i32

def _strided_i32_y(x_ref, y_ref):
    # y[i] = (x[i] - 3)
    v0 = x_ref[...][:, 0]
    v3 = v0 - jnp.int32(3)
    out = v3
    y_ref[...] = out


_strided_i32_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 2), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16,), lambda _: (np.int32(0),)))


def strided_i32_pure(x, *, interpret=False):
    """Traceable strided_i32(x i32[16] (storage of 31)) -> y i32[16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _strided_i32_y,
        out_shape=jax.ShapeDtypeStruct((16,), jnp.int32),
        grid_spec=_strided_i32_y_grid,
        interpret=interpret,
    )(_pad(x, 32).reshape(16, 2))
    return y.reshape(16)


_strided_i32 = jax.jit(strided_i32_pure, static_argnames="interpret")


def strided_i32(x, *, interpret=None):
    """strided_i32(x i32[16] (storage of 31)) -> y i32[16]."""
    return _run(_strided_i32, (x,), interpret)


# ---- kernel transposed_i64

def _transposed_i64_y_x(x):
    """x[i, j] over (4, 4), in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64."""
    a = x.reshape(4, 4)
    a = jnp.transpose(a, (1, 0))
    return a


def _transposed_i64_y(x_ref):
    # y[i, j] = ((x[i, j] * 3) - 7)
    v0 = x_ref[...]
    v2 = v0 * jnp.int64(3)
    v4 = v2 - jnp.int64(7)
    return jnp.broadcast_to(v4, (4, 4)).reshape(-1).astype(jnp.int64)


def transposed_i64_pure(x, *, interpret=False):
    """Traceable transposed_i64(x i64[4, 4] (storage of 16)) -> y i64[4, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    # in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64
    y = _transposed_i64_y(_transposed_i64_y_x(x))
    return y.reshape(4, 4)


_transposed_i64 = jax.jit(transposed_i64_pure, static_argnames="interpret")


def transposed_i64(x, *, interpret=None):
    """transposed_i64(x i64[4, 4] (storage of 16)) -> y i64[4, 4]."""
    return _run(_transposed_i64, (x,), interpret)


# ---- kernel lut_u8

def _lut_u8_y_table(table, img):
    """table[img[i, j]] over (4, 6), in XLA: Mosaic reads no scalars of less than 32 bits."""
    i = jax.lax.broadcasted_iota(jnp.int32, (4, 1), 0)
    j = jax.lax.broadcasted_iota(jnp.int32, (1, 6), 1)
    return jnp.take(table, jnp.broadcast_to(jnp.take(img, (6*i + j), mode="clip"), (4, 6)), mode="clip")


def _lut_u8_y_img(img):
    """img[i, j] over (4, 6), in XLA: Mosaic reads no scalars of less than 32 bits."""
    a = img.reshape(4, 6)
    return a


def _lut_u8_y(table_ref):
    # y[i, j] = table[img[i, j]]
    v2 = table_ref[...]
    return jnp.broadcast_to(v2, (4, 6)).reshape(-1).astype(jnp.uint8)


def lut_u8_pure(table, img, *, interpret=False):
    """Traceable lut_u8(table u8[256], img u8[4, 6]) -> y u8[4, 6]."""
    table = jnp.asarray(table).reshape(-1)
    img = jnp.asarray(img).reshape(-1)
    # y
    # in XLA: Mosaic reads no scalars of less than 32 bits
    y = _lut_u8_y(_lut_u8_y_table(table, img))
    return y.reshape(4, 6)


_lut_u8 = jax.jit(lut_u8_pure, static_argnames="interpret")


def lut_u8(table, img, *, interpret=None):
    """lut_u8(table u8[256], img u8[4, 6]) -> y u8[4, 6]."""
    return _run(_lut_u8, (table, img), interpret)


# ---- kernel u8_to_f32_strided

def _u8_to_f32_strided_y(x_ref, y_ref):
    # y[i, j] = (f32(x[i, j]) / 255)
    v0 = x_ref[...][:, 0:8]
    v1 = v0.astype(jnp.float32)
    v4 = v1 / jnp.float32(255)
    out = v4
    y_ref[...] = out


_u8_to_f32_strided_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 16), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 8), lambda _: (np.int32(0), np.int32(0))))


def u8_to_f32_strided_pure(x, *, interpret=False):
    """Traceable u8_to_f32_strided(x u8[8, 8] (storage of 120)) -> y f32[8, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _u8_to_f32_strided_y,
        out_shape=jax.ShapeDtypeStruct((8, 8), jnp.float32),
        grid_spec=_u8_to_f32_strided_y_grid,
        interpret=interpret,
    )(_pad(x, 128).reshape(8, 16))
    y = y.reshape(-1)
    return y.reshape(8, 8)


_u8_to_f32_strided = jax.jit(u8_to_f32_strided_pure, static_argnames="interpret")


def u8_to_f32_strided(x, *, interpret=None):
    """u8_to_f32_strided(x u8[8, 8] (storage of 120)) -> y f32[8, 8]."""
    return _run(_u8_to_f32_strided, (x,), interpret)


# ---- kernel permute_f16

def _permute_f16_y_x(x):
    """x[a, b, c] over (8, 4, 6), in XLA: Mosaic loads no f16 vectors."""
    a = x.reshape(4, 6, 8)
    a = jnp.transpose(a, (2, 0, 1))
    return a


def _permute_f16_y(x_ref):
    # y[c, a, b] = ((x[a, b, c] * 2) + 1)
    v0 = x_ref[...]
    v3 = v0 * jnp.float16(2)
    v6 = v3 + jnp.float16(1)
    return jnp.broadcast_to(v6, (8, 4, 6)).reshape(-1).astype(jnp.float16)


def permute_f16_pure(x, *, interpret=False):
    """Traceable permute_f16(x f16[4, 6, 8]) -> y f16[8, 4, 6]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    # in XLA: Mosaic loads no f16 vectors
    y = _permute_f16_y(_permute_f16_y_x(x))
    return y.reshape(8, 4, 6)


_permute_f16 = jax.jit(permute_f16_pure, static_argnames="interpret")


def permute_f16(x, *, interpret=None):
    """permute_f16(x f16[4, 6, 8]) -> y f16[8, 4, 6]."""
    return _run(_permute_f16, (x,), interpret)


# ---- kernel f16_to_f32_flipped

def _f16_to_f32_flipped_y_x(x):
    """x[i] over (8,), in XLA: Mosaic loads no f16 vectors."""
    a = x
    a = a[7::-1]
    return a


def _f16_to_f32_flipped_y(x_ref):
    # y[i] = f32(x[i])
    v0 = x_ref[...]
    v1 = v0.astype(jnp.float32)
    return jnp.broadcast_to(v1, (8,)).reshape(-1).astype(jnp.float32)


def f16_to_f32_flipped_pure(x, *, interpret=False):
    """Traceable f16_to_f32_flipped(x f16[8] (storage of 8)) -> y f32[8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    # in XLA: Mosaic loads no f16 vectors
    y = _f16_to_f32_flipped_y(_f16_to_f32_flipped_y_x(x))
    return y.reshape(8)


_f16_to_f32_flipped = jax.jit(f16_to_f32_flipped_pure, static_argnames="interpret")


def f16_to_f32_flipped(x, *, interpret=None):
    """f16_to_f32_flipped(x f16[8] (storage of 8)) -> y f32[8]."""
    return _run(_f16_to_f32_flipped, (x,), interpret)


# ---- kernel channels_last_bf16

def _channels_last_bf16_y(x_ref, y_ref):
    # y[n, c, h, w] = ((x[n, c, h, w] * 2) + 1)
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (0, 3, 1, 2))
    v3 = v0 * jnp.bfloat16(2)
    v6 = v3 + jnp.bfloat16(1)
    out = v6
    y_ref[...] = out


_channels_last_bf16_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 4, 5, 3), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 3, 4, 5), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def channels_last_bf16_pure(x, *, interpret=False):
    """Traceable channels_last_bf16(x bf16[2, 3, 4, 5] (storage of 120)) -> y bf16[2, 3, 4, 5]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _channels_last_bf16_y,
        out_shape=jax.ShapeDtypeStruct((2, 3, 4, 5), jnp.bfloat16),
        grid_spec=_channels_last_bf16_y_grid,
        interpret=interpret,
    )(x.reshape(2, 4, 5, 3))
    y = y.reshape(-1)
    return y.reshape(2, 3, 4, 5)


_channels_last_bf16 = jax.jit(channels_last_bf16_pure, static_argnames="interpret")


def channels_last_bf16(x, *, interpret=None):
    """channels_last_bf16(x bf16[2, 3, 4, 5] (storage of 120)) -> y bf16[2, 3, 4, 5]."""
    return _run(_channels_last_bf16, (x,), interpret)


# ---- kernel f32_to_bf16_transposed

def _f32_to_bf16_transposed_y(x_ref, y_ref):
    # y[i, j] = bf16(x[i, j])
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v1 = v0.astype(jnp.bfloat16)
    out = v1
    y_ref[...] = out


_f32_to_bf16_transposed_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((6, 8), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 6), lambda _: (np.int32(0), np.int32(0))))


def f32_to_bf16_transposed_pure(x, *, interpret=False):
    """Traceable f32_to_bf16_transposed(x f32[8, 6] (storage of 48)) -> y bf16[8, 6]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _f32_to_bf16_transposed_y,
        out_shape=jax.ShapeDtypeStruct((8, 6), jnp.bfloat16),
        grid_spec=_f32_to_bf16_transposed_y_grid,
        interpret=interpret,
    )(x.reshape(6, 8))
    y = y.reshape(-1)
    return y.reshape(8, 6)


_f32_to_bf16_transposed = jax.jit(f32_to_bf16_transposed_pure, static_argnames="interpret")


def f32_to_bf16_transposed(x, *, interpret=None):
    """f32_to_bf16_transposed(x f32[8, 6] (storage of 48)) -> y bf16[8, 6]."""
    return _run(_f32_to_bf16_transposed, (x,), interpret)


# ---- kernel gather_bf16

def _gather_bf16_y(idx_ref, table_ref, y_ref, err_ref):
    # y[s, d] = table[idx[s], d]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = idx_ref[pl.program_id(0)]
    v1 = table_ref[...][0, :]
    v1 = v1.reshape((1, 4))
    bad = (v0 < 0) | (v0 >= 10)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (1, 4))
    y_ref[...] = out


_gather_bf16_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(5,),
    in_specs=[
        pl.BlockSpec((None, 1, 4), lambda s, idx_ref: (jnp.clip(idx_ref[s], 0, 9), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 4), lambda s, idx_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_bf16_MESSAGES = (
    "kernel gather_bf16: index {2} out of range for dim 0 of 'table' (size 10) at y[{3}, {4}]",
)


def gather_bf16_pure(table, idx, *, interpret=False):
    """Traceable gather_bf16(table bf16[10, 4], idx i64[5]) -> y bf16[5, 4]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _gather_bf16_y,
        out_shape=(jax.ShapeDtypeStruct((5, 1, 4), jnp.bfloat16), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_bf16_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(idx), table.reshape(10, 1, 4))
    y = y.reshape(-1)
    return y.reshape(5, 4), bad0


_gather_bf16 = jax.jit(gather_bf16_pure, static_argnames="interpret")


def gather_bf16(table, idx, *, interpret=None):
    """gather_bf16(table bf16[10, 4], idx i64[5]) -> y bf16[5, 4]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_bf16, (table, idx), interpret)
    _raise_bad(bad, _gather_bf16_MESSAGES)
    return outs[0]


# ---- kernel sum_f64_transposed

def _sum_f64_transposed_y_x(x):
    """x[i, k] over (6, 5), in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64."""
    a = x.reshape(5, 6)
    a = jnp.transpose(a, (1, 0))
    return a


def _sum_f64_transposed_y(x_ref):
    # y[i] = sum(k: x[i, k])
    v0 = x_ref[...]
    v1 = jnp.broadcast_to(v0, (6, 5))
    v1 = jnp.sum(v1, axis=(1,), keepdims=True).astype(jnp.float64)
    return jnp.broadcast_to(v1, (6, 1)).reshape(-1).astype(jnp.float64)


def sum_f64_transposed_pure(x, *, interpret=False):
    """Traceable sum_f64_transposed(x f64[6, 5] (storage of 30)) -> y f64[6]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    # in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64
    y = _sum_f64_transposed_y(_sum_f64_transposed_y_x(x))
    return y.reshape(6)


_sum_f64_transposed = jax.jit(sum_f64_transposed_pure, static_argnames="interpret")


def sum_f64_transposed(x, *, interpret=None):
    """sum_f64_transposed(x f64[6, 5] (storage of 30)) -> y f64[6]."""
    return _run(_sum_f64_transposed, (x,), interpret)


# ---- kernel f64_to_i32_transposed

def _f64_to_i32_transposed_y_x(x):
    """x[i, j] over (4, 3), in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64."""
    a = x.reshape(3, 4)
    a = jnp.transpose(a, (1, 0))
    return a


def _f64_to_i32_transposed_y(x_ref):
    # y[j, i] = i32(x[i, j])
    v0 = x_ref[...]
    v1 = jnp.where(v0 != v0, 0, jnp.where(v0 >= 2.0 ** 31, jnp.iinfo(jnp.int32).max, jnp.where(v0 <= -2.0 ** 31, jnp.iinfo(jnp.int32).min, v0.astype(jnp.int32)))).astype(jnp.int32)
    return jnp.broadcast_to(v1, (4, 3)).reshape(-1).astype(jnp.int32)


def f64_to_i32_transposed_pure(x, *, interpret=False):
    """Traceable f64_to_i32_transposed(x f64[3, 4]) -> y i32[4, 3]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    # in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64
    y = _f64_to_i32_transposed_y(_f64_to_i32_transposed_y_x(x))
    return y.reshape(4, 3)


_f64_to_i32_transposed = jax.jit(f64_to_i32_transposed_pure, static_argnames="interpret")


def f64_to_i32_transposed(x, *, interpret=None):
    """f64_to_i32_transposed(x f64[3, 4]) -> y i32[4, 3]."""
    return _run(_f64_to_i32_transposed, (x,), interpret)
