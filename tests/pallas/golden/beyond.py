"""Pallas kernels of examples/beyond.ath, emitted by athene (target pallas). Do not edit.

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


# ---- kernel unfold_1d

def _unfold_1d_y_x(x):
    """x[((w * 2) + k)] over (7, 5), in XLA: coefficients 1 (k, 5 values) and 2 (w) overlap: overlapping windows, like unfold."""
    w = jax.lax.broadcasted_iota(jnp.int32, (7, 1), 0)
    k = jax.lax.broadcasted_iota(jnp.int32, (1, 5), 1)
    return jnp.take(x, jnp.broadcast_to((2*w + k), (7, 5)), mode="clip")


def _unfold_1d_y(x_ref, y_ref):
    # y[w, k] = x[((w * 2) + k)]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_unfold_1d_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((7, 5), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((7, 5), lambda _: (np.int32(0), np.int32(0))))


def unfold_1d_pure(x, *, interpret=False):
    """Traceable unfold_1d(x f32[17]) -> y f32[7, 5]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _unfold_1d_y,
        out_shape=jax.ShapeDtypeStruct((7, 5), jnp.float32),
        grid_spec=_unfold_1d_y_grid,
        interpret=interpret,
    )(_unfold_1d_y_x(x))
    y = y.reshape(-1)
    return y.reshape(7, 5)


_unfold_1d = jax.jit(unfold_1d_pure, static_argnames="interpret")


def unfold_1d(x, *, interpret=None):
    """unfold_1d(x f32[17]) -> y f32[7, 5]."""
    return _run(_unfold_1d, (x,), interpret)


# ---- kernel im2col_3x3

def _im2col_3x3_y_x(x):
    """x[((p // 4) + (q // 3)), ((p % 4) + (q % 3))] over (16, 9), in XLA: coefficients 1 (p digit 0, 4 values) and 1 (q digit 0) overlap: overlapping windows, like unfold."""
    p = jax.lax.broadcasted_iota(jnp.int32, (16, 1), 0)
    q = jax.lax.broadcasted_iota(jnp.int32, (1, 9), 1)
    return jnp.take(x, jnp.broadcast_to((6*(p // 4) + 6*(q // 3) + (q % 3) + (p % 4)), (16, 9)), mode="clip")


def _im2col_3x3_y(x_ref, y_ref):
    # y[p, q] = x[((p // 4) + (q // 3)), ((p % 4) + (q % 3))]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_im2col_3x3_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 9), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 9), lambda _: (np.int32(0), np.int32(0))))


def im2col_3x3_pure(x, *, interpret=False):
    """Traceable im2col_3x3(x f32[6, 6]) -> y f32[16, 9]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _im2col_3x3_y,
        out_shape=jax.ShapeDtypeStruct((16, 9), jnp.float32),
        grid_spec=_im2col_3x3_y_grid,
        interpret=interpret,
    )(_im2col_3x3_y_x(x))
    y = y.reshape(-1)
    return y.reshape(16, 9)


_im2col_3x3 = jax.jit(im2col_3x3_pure, static_argnames="interpret")


def im2col_3x3(x, *, interpret=None):
    """im2col_3x3(x f32[6, 6]) -> y f32[16, 9]."""
    return _run(_im2col_3x3, (x,), interpret)


# ---- kernel unfold_2d

def _unfold_2d_y_x(x):
    """x[(oh + kh), (ow + kw)] over (4, 4, 3, 3), in XLA: coefficients 1 (ow, 4 values) and 1 (kw) overlap: overlapping windows, like unfold."""
    oh = jax.lax.broadcasted_iota(jnp.int32, (4, 1, 1, 1), 0)
    ow = jax.lax.broadcasted_iota(jnp.int32, (1, 4, 1, 1), 1)
    kh = jax.lax.broadcasted_iota(jnp.int32, (1, 1, 3, 1), 2)
    kw = jax.lax.broadcasted_iota(jnp.int32, (1, 1, 1, 3), 3)
    return jnp.take(x, jnp.broadcast_to((6*oh + 6*kh + ow + kw), (4, 4, 3, 3)), mode="clip")


def _unfold_2d_y(x_ref, y_ref):
    # y[oh, ow, kh, kw] = x[(oh + kh), (ow + kw)]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_unfold_2d_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 4, 3, 3), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 4, 3, 3), lambda _: (np.int32(0), np.int32(0), np.int32(0), np.int32(0))))


def unfold_2d_pure(x, *, interpret=False):
    """Traceable unfold_2d(x f32[6, 6]) -> y f32[4, 4, 3, 3]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _unfold_2d_y,
        out_shape=jax.ShapeDtypeStruct((4, 4, 3, 3), jnp.float32),
        grid_spec=_unfold_2d_y_grid,
        interpret=interpret,
    )(_unfold_2d_y_x(x))
    y = y.reshape(-1)
    return y.reshape(4, 4, 3, 3)


_unfold_2d = jax.jit(unfold_2d_pure, static_argnames="interpret")


def unfold_2d(x, *, interpret=None):
    """unfold_2d(x f32[6, 6]) -> y f32[4, 4, 3, 3]."""
    return _run(_unfold_2d, (x,), interpret)


# ---- kernel unfold_sym

def _unfold_sym_y_x(x):
    """x[((w * 2) + k)] over (16, 4), in XLA: coefficients 1 (k, 4 values) and 2 (w) overlap: overlapping windows, like unfold."""
    w = jax.lax.broadcasted_iota(jnp.int32, (16, 1), 0)
    k = jax.lax.broadcasted_iota(jnp.int32, (1, 4), 1)
    return jnp.take(x, jnp.broadcast_to((2*w + k), (16, 4)), mode="clip")


def _unfold_sym_y(x_ref, y_ref):
    # y[w, k] = x[((w * 2) + k)]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_unfold_sym_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 4), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 4), lambda _: (np.int32(0), np.int32(0))))


def unfold_sym_pure(x, *, interpret=False):
    """Traceable unfold_sym(x f32[64]) -> y f32[16, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _unfold_sym_y,
        out_shape=jax.ShapeDtypeStruct((16, 4), jnp.float32),
        grid_spec=_unfold_sym_y_grid,
        interpret=interpret,
    )(_unfold_sym_y_x(x))
    y = y.reshape(-1)
    return y.reshape(16, 4)


_unfold_sym = jax.jit(unfold_sym_pure, static_argnames="interpret")


def unfold_sym(x, *, interpret=None):
    """unfold_sym(x f32[64]) -> y f32[16, 4]."""
    return _run(_unfold_sym, (x,), interpret)


# ---- kernel iota_two_outputs

def _iota_two_outputs_y(x_ref, y_ref):
    # y[i, j] = (f32(((i * 8) + j)) * x[i, j])
    i = jax.lax.broadcasted_iota(jnp.int32, (8, 1), 0)
    v2 = i * jnp.int32(8)
    j = jax.lax.broadcasted_iota(jnp.int32, (1, 8), 1)
    v4 = v2 + j
    v5 = v4.astype(jnp.float32)
    v6 = x_ref[...]
    v7 = v5 * v6
    out = v7
    y_ref[...] = out


_iota_two_outputs_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 8), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 8), lambda _: (np.int32(0), np.int32(0))))

def _iota_two_outputs_z(x_ref, z_ref):
    # z[i, j] = (x[i, j] + f32((j + 10)))
    v0 = x_ref[...]
    j = jax.lax.broadcasted_iota(jnp.int32, (1, 8), 1)
    v3 = j + jnp.int32(10)
    v4 = v3.astype(jnp.float32)
    v5 = v0 + v4
    out = v5
    z_ref[...] = out


_iota_two_outputs_z_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 8), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 8), lambda _: (np.int32(0), np.int32(0))))


def iota_two_outputs_pure(x, *, interpret=False):
    """Traceable iota_two_outputs(x f32[8, 8]) -> y f32[8, 8], z f32[8, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _iota_two_outputs_y,
        out_shape=jax.ShapeDtypeStruct((8, 8), jnp.float32),
        grid_spec=_iota_two_outputs_y_grid,
        interpret=interpret,
    )(x.reshape(8, 8))
    y = y.reshape(-1)
    # z
    z = pl.pallas_call(
        _iota_two_outputs_z,
        out_shape=jax.ShapeDtypeStruct((8, 8), jnp.float32),
        grid_spec=_iota_two_outputs_z_grid,
        interpret=interpret,
    )(x.reshape(8, 8))
    z = z.reshape(-1)
    return y.reshape(8, 8), z.reshape(8, 8)


_iota_two_outputs = jax.jit(iota_two_outputs_pure, static_argnames="interpret")


def iota_two_outputs(x, *, interpret=None):
    """iota_two_outputs(x f32[8, 8]) -> y f32[8, 8], z f32[8, 8]."""
    return _run(_iota_two_outputs, (x,), interpret)


# ---- kernel arange_sym

def _arange_sym_y(y_ref):
    # y[i] = f32(i)
    i = jax.lax.broadcasted_iota(jnp.int32, (64,), 0)
    v1 = i.astype(jnp.float32)
    out = v1
    y_ref[...] = out


_arange_sym_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[],
    out_specs=pl.BlockSpec((64,), lambda _: (np.int32(0),)))


def arange_sym_pure(*, interpret=False):
    """Traceable arange_sym() -> y f32[64]."""
    # y
    y = pl.pallas_call(
        _arange_sym_y,
        out_shape=jax.ShapeDtypeStruct((64,), jnp.float32),
        grid_spec=_arange_sym_y_grid,
        interpret=interpret,
    )()
    return y.reshape(64)


_arange_sym = jax.jit(arange_sym_pure, static_argnames="interpret")


def arange_sym(*, interpret=None):
    """arange_sym() -> y f32[64]."""
    return _run(_arange_sym, (), interpret)


# ---- kernel iota_i64

def _iota_i64_y():
    # y[i, j] = (((i * 5) + j) - 7)
    i = jax.lax.broadcasted_iota(jnp.int32, (4, 1), 0)
    v0 = i.astype(jnp.int64)
    v2 = v0 * jnp.int64(5)
    j = jax.lax.broadcasted_iota(jnp.int32, (1, 5), 1)
    v3 = j.astype(jnp.int64)
    v4 = v2 + v3
    v6 = v4 - jnp.int64(7)
    return jnp.broadcast_to(v6, (4, 5)).reshape(-1).astype(jnp.int64)


def iota_i64_pure(*, interpret=False):
    """Traceable iota_i64() -> y i64[4, 5]."""
    # y
    # in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64
    y = _iota_i64_y()
    return y.reshape(4, 5)


_iota_i64 = jax.jit(iota_i64_pure, static_argnames="interpret")


def iota_i64(*, interpret=None):
    """iota_i64() -> y i64[4, 5]."""
    return _run(_iota_i64, (), interpret)


# ---- kernel size1_bcast

def _size1_bcast_y(x_ref, b_ref, y_ref):
    # y[a, j, c] = ((x[a, j, c] * 2) + b[0])
    v0 = x_ref[...]
    v0 = v0.reshape((1, 8, 1))
    v3 = v0 * jnp.float32(2)
    v4 = b_ref[...][0]
    v4 = v4.reshape((1, 1, 1))
    v5 = v3 + v4
    out = jnp.broadcast_to(v5, (1, 8, 1))
    out = out.reshape((8,))
    y_ref[...] = out


_size1_bcast_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8,), lambda _: (np.int32(0),)),
        pl.BlockSpec((1,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((8,), lambda _: (np.int32(0),)))


def size1_bcast_pure(x, b, *, interpret=False):
    """Traceable size1_bcast(x f32[1, 8, 1], b f32[1]) -> y f32[1, 8, 1]."""
    x = jnp.asarray(x).reshape(-1)
    b = jnp.asarray(b).reshape(-1)
    # y
    y = pl.pallas_call(
        _size1_bcast_y,
        out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
        grid_spec=_size1_bcast_y_grid,
        interpret=interpret,
    )(x, b)
    return y.reshape(1, 8, 1)


_size1_bcast = jax.jit(size1_bcast_pure, static_argnames="interpret")


def size1_bcast(x, b, *, interpret=None):
    """size1_bcast(x f32[1, 8, 1], b f32[1]) -> y f32[1, 8, 1]."""
    return _run(_size1_bcast, (x, b), interpret)


# ---- kernel size1_gather

def _size1_gather_y(idx_ref, table_ref, y_ref, err_ref):
    # y[s, d] = table[wrap(idx[s], 1), d]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = idx_ref[pl.program_id(0)]
    v2 = jnp.where(v0 < 0, v0 + jnp.int32(1), v0)
    v3 = table_ref[...][0, :]
    v3 = v3.reshape((1, 4))
    bad = (v2 < 0) | (v2 >= 1)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v3, (1, 4))
    y_ref[...] = out


_size1_gather_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(3,),
    in_specs=[
        pl.BlockSpec((None, 1, 4), lambda s, idx_ref: (jnp.clip(jnp.where(idx_ref[s] < 0, idx_ref[s] + 1, idx_ref[s]), 0, 0), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 4), lambda s, idx_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_size1_gather_MESSAGES = (
    "kernel size1_gather: index {2} out of range for dim 0 of 'table' (size 1; wrap() accepts [-1, 1)) at y[{3}, {4}]",
)


def size1_gather_pure(table, idx, *, interpret=False):
    """Traceable size1_gather(table f32[1, 4], idx i64[3]) -> y f32[3, 4]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _size1_gather_y,
        out_shape=(jax.ShapeDtypeStruct((3, 1, 4), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_size1_gather_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(idx), table.reshape(1, 1, 4))
    y = y.reshape(-1)
    return y.reshape(3, 4), bad0


_size1_gather = jax.jit(size1_gather_pure, static_argnames="interpret")


def size1_gather(table, idx, *, interpret=None):
    """size1_gather(table f32[1, 4], idx i64[3]) -> y f32[3, 4]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_size1_gather, (table, idx), interpret)
    _raise_bad(bad, _size1_gather_MESSAGES)
    return outs[0]


# ---- kernel zero_rows_sym

def _zero_rows_sym_y(x_ref, y_ref):
    # y[i, j] = ((x[i, j] * 2) + 1)
    v0 = x_ref[...]
    v3 = v0 * jnp.float32(2)
    v6 = v3 + jnp.float32(1)
    out = v6
    y_ref[...] = out


_zero_rows_sym_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((64, 3), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((64, 3), lambda _: (np.int32(0), np.int32(0))))


def zero_rows_sym_pure(x, *, interpret=False):
    """Traceable zero_rows_sym(x f32[64, 3]) -> y f32[64, 3]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _zero_rows_sym_y,
        out_shape=jax.ShapeDtypeStruct((64, 3), jnp.float32),
        grid_spec=_zero_rows_sym_y_grid,
        interpret=interpret,
    )(x.reshape(64, 3))
    y = y.reshape(-1)
    return y.reshape(64, 3)


_zero_rows_sym = jax.jit(zero_rows_sym_pure, static_argnames="interpret")


def zero_rows_sym(x, *, interpret=None):
    """zero_rows_sym(x f32[64, 3]) -> y f32[64, 3]."""
    return _run(_zero_rows_sym, (x,), interpret)


# ---- kernel zero_view


def zero_view_pure(x, *, interpret=False):
    """Traceable zero_view(x f32[4, 0] (storage of 0)) -> y f32[0, 4]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = jnp.zeros((0,), jnp.float32)  # no elements
    return y.reshape(0, 4)


_zero_view = jax.jit(zero_view_pure, static_argnames="interpret")


def zero_view(x, *, interpret=None):
    """zero_view(x f32[4, 0] (storage of 0)) -> y f32[0, 4]."""
    return _run(_zero_view, (x,), interpret)


# ---- kernel scalar_0d

def _scalar_0d_y(x_ref, s_ref, y_ref):
    # y[i] = (x[i] * s)
    v0 = x_ref[...]
    v1 = s_ref[...][0]
    v1 = v1.reshape((1,))
    v2 = v0 * v1
    out = v2
    y_ref[...] = out


_scalar_0d_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4,), lambda _: (np.int32(0),)),
        pl.BlockSpec((1,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((4,), lambda _: (np.int32(0),)))

def _scalar_0d_t(s_ref, t_ref):
    # t[] = (s + 1)
    v0 = s_ref[...][0]
    v3 = v0 + jnp.float32(1)
    out = v3
    out = out.reshape((1, 1))
    t_ref[...] = out


_scalar_0d_t_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((1,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((None, 1, 1), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def scalar_0d_pure(s, x, *, interpret=False):
    """Traceable scalar_0d(s f32[], x f32[4]) -> y f32[4], t f32[]."""
    s = jnp.asarray(s).reshape(-1)
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _scalar_0d_y,
        out_shape=jax.ShapeDtypeStruct((4,), jnp.float32),
        grid_spec=_scalar_0d_y_grid,
        interpret=interpret,
    )(x, s)
    # t
    t = pl.pallas_call(
        _scalar_0d_t,
        out_shape=jax.ShapeDtypeStruct((1, 1, 1), jnp.float32),
        grid_spec=_scalar_0d_t_grid,
        interpret=interpret,
    )(s)
    t = t.reshape(-1)
    return y.reshape(4), t.reshape(())


_scalar_0d = jax.jit(scalar_0d_pure, static_argnames="interpret")


def scalar_0d(s, x, *, interpret=None):
    """scalar_0d(s f32[], x f32[4]) -> y f32[4], t f32[]."""
    return _run(_scalar_0d, (s, x), interpret)
