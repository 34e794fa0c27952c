"""Pallas kernels of examples/gather.ath, emitted by athene (target pallas). Do not edit.

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


# ---- kernel gather_1d

def _gather_1d_y(indices_ref, x_ref, y_ref, err_ref):
    # y[s] = x[indices[s]]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = indices_ref[pl.program_id(0)]
    v1 = x_ref[...][0, 0]
    v1 = v1.reshape((1,))
    bad = (v0 < 0) | (v0 >= 16)
    _record(err_ref, bad, 0, v0, (pl.program_id(0),))
    out = jnp.broadcast_to(v1, (1,))
    out = out.reshape((1, 1))
    y_ref[...] = out


_gather_1d_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(8,),
    in_specs=[
        pl.BlockSpec((None, 1, 1), lambda s, indices_ref: (jnp.clip(indices_ref[s], 0, 15), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 1), lambda s, indices_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_1d_MESSAGES = (
    "kernel gather_1d: index {2} out of range for dim 0 of 'x' (size 16) at y[{3}]",
)


def gather_1d_pure(x, indices, *, interpret=False):
    """Traceable gather_1d(x f32[16], indices i64[8]) -> y f32[8]. Returns the outputs, then the bad-index records."""
    x = jnp.asarray(x).reshape(-1)
    indices = jnp.asarray(indices).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _gather_1d_y,
        out_shape=(jax.ShapeDtypeStruct((8, 1, 1), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_1d_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(indices), x.reshape(16, 1, 1))
    y = y.reshape(-1)
    return y.reshape(8), bad0


_gather_1d = jax.jit(gather_1d_pure, static_argnames="interpret")


def gather_1d(x, indices, *, interpret=None):
    """gather_1d(x f32[16], indices i64[8]) -> y f32[8]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_1d, (x, indices), interpret)
    _raise_bad(bad, _gather_1d_MESSAGES)
    return outs[0]


# ---- kernel gather_rows

def _gather_rows_y(rows_ref, x_ref, y_ref, err_ref):
    # y[s, d] = x[rows[s], d]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = rows_ref[pl.program_id(0)]
    v1 = x_ref[...][0, :]
    v1 = v1.reshape((1, 8))
    bad = (v0 < 0) | (v0 >= 16)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (1, 8))
    y_ref[...] = out


_gather_rows_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(4,),
    in_specs=[
        pl.BlockSpec((None, 1, 8), lambda s, rows_ref: (jnp.clip(rows_ref[s], 0, 15), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 8), lambda s, rows_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_rows_MESSAGES = (
    "kernel gather_rows: index {2} out of range for dim 0 of 'x' (size 16) at y[{3}, {4}]",
)


def gather_rows_pure(x, rows, *, interpret=False):
    """Traceable gather_rows(x f32[16, 8], rows i64[4]) -> y f32[4, 8]. Returns the outputs, then the bad-index records."""
    x = jnp.asarray(x).reshape(-1)
    rows = jnp.asarray(rows).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _gather_rows_y,
        out_shape=(jax.ShapeDtypeStruct((4, 1, 8), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_rows_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(rows), x.reshape(16, 1, 8))
    y = y.reshape(-1)
    return y.reshape(4, 8), bad0


_gather_rows = jax.jit(gather_rows_pure, static_argnames="interpret")


def gather_rows(x, rows, *, interpret=None):
    """gather_rows(x f32[16, 8], rows i64[4]) -> y f32[4, 8]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_rows, (x, rows), interpret)
    _raise_bad(bad, _gather_rows_MESSAGES)
    return outs[0]


# ---- kernel embed_256x64_32

def _embed_256x64_32_y(indices_ref, table_ref, y_ref, err_ref):
    # y[s, d] = table[indices[s], d]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = indices_ref[pl.program_id(0)]
    v1 = table_ref[...][0, :]
    v1 = v1.reshape((1, 64))
    bad = (v0 < 0) | (v0 >= 256)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (1, 64))
    y_ref[...] = out


_embed_256x64_32_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(32,),
    in_specs=[
        pl.BlockSpec((None, 1, 64), lambda s, indices_ref: (jnp.clip(indices_ref[s], 0, 255), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 64), lambda s, indices_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_embed_256x64_32_MESSAGES = (
    "kernel embed_256x64_32: index {2} out of range for dim 0 of 'table' (size 256) at y[{3}, {4}]",
)


def embed_256x64_32_pure(table, indices, *, interpret=False):
    """Traceable embed_256x64_32(table f32[256, 64], indices i64[32]) -> y f32[32, 64]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    indices = jnp.asarray(indices).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _embed_256x64_32_y,
        out_shape=(jax.ShapeDtypeStruct((32, 1, 64), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_embed_256x64_32_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(indices), table.reshape(256, 1, 64))
    y = y.reshape(-1)
    return y.reshape(32, 64), bad0


_embed_256x64_32 = jax.jit(embed_256x64_32_pure, static_argnames="interpret")


def embed_256x64_32(table, indices, *, interpret=None):
    """embed_256x64_32(table f32[256, 64], indices i64[32]) -> y f32[32, 64]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_embed_256x64_32, (table, indices), interpret)
    _raise_bad(bad, _embed_256x64_32_MESSAGES)
    return outs[0]


# ---- kernel embed_256x64_64

def _embed_256x64_64_y(indices_ref, table_ref, y_ref, err_ref):
    # y[s, d] = table[indices[s], d]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = indices_ref[pl.program_id(0)]
    v1 = table_ref[...][0, :]
    v1 = v1.reshape((1, 64))
    bad = (v0 < 0) | (v0 >= 256)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (1, 64))
    y_ref[...] = out


_embed_256x64_64_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(64,),
    in_specs=[
        pl.BlockSpec((None, 1, 64), lambda s, indices_ref: (jnp.clip(indices_ref[s], 0, 255), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 64), lambda s, indices_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_embed_256x64_64_MESSAGES = (
    "kernel embed_256x64_64: index {2} out of range for dim 0 of 'table' (size 256) at y[{3}, {4}]",
)


def embed_256x64_64_pure(table, indices, *, interpret=False):
    """Traceable embed_256x64_64(table f32[256, 64], indices i64[64]) -> y f32[64, 64]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    indices = jnp.asarray(indices).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _embed_256x64_64_y,
        out_shape=(jax.ShapeDtypeStruct((64, 1, 64), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_embed_256x64_64_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(indices), table.reshape(256, 1, 64))
    y = y.reshape(-1)
    return y.reshape(64, 64), bad0


_embed_256x64_64 = jax.jit(embed_256x64_64_pure, static_argnames="interpret")


def embed_256x64_64(table, indices, *, interpret=None):
    """embed_256x64_64(table f32[256, 64], indices i64[64]) -> y f32[64, 64]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_embed_256x64_64, (table, indices), interpret)
    _raise_bad(bad, _embed_256x64_64_MESSAGES)
    return outs[0]


# ---- kernel embed_256x100_32

def _embed_256x100_32_y(indices_ref, table_ref, y_ref, err_ref):
    # y[s, d] = table[indices[s], d]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = indices_ref[pl.program_id(0)]
    v1 = table_ref[...][0, :]
    v1 = v1.reshape((1, 100))
    bad = (v0 < 0) | (v0 >= 256)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (1, 100))
    y_ref[...] = out


_embed_256x100_32_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(32,),
    in_specs=[
        pl.BlockSpec((None, 1, 100), lambda s, indices_ref: (jnp.clip(indices_ref[s], 0, 255), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 100), lambda s, indices_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_embed_256x100_32_MESSAGES = (
    "kernel embed_256x100_32: index {2} out of range for dim 0 of 'table' (size 256) at y[{3}, {4}]",
)


def embed_256x100_32_pure(table, indices, *, interpret=False):
    """Traceable embed_256x100_32(table f32[256, 100], indices i64[32]) -> y f32[32, 100]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    indices = jnp.asarray(indices).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _embed_256x100_32_y,
        out_shape=(jax.ShapeDtypeStruct((32, 1, 100), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_embed_256x100_32_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(indices), table.reshape(256, 1, 100))
    y = y.reshape(-1)
    return y.reshape(32, 100), bad0


_embed_256x100_32 = jax.jit(embed_256x100_32_pure, static_argnames="interpret")


def embed_256x100_32(table, indices, *, interpret=None):
    """embed_256x100_32(table f32[256, 100], indices i64[32]) -> y f32[32, 100]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_embed_256x100_32, (table, indices), interpret)
    _raise_bad(bad, _embed_256x100_32_MESSAGES)
    return outs[0]


# ---- kernel embed_2048x128_64

def _embed_2048x128_64_y(indices_ref, table_ref, y_ref, err_ref):
    # y[s, d] = table[indices[s], d]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = indices_ref[pl.program_id(0)]
    v1 = table_ref[...][0, :]
    v1 = v1.reshape((1, 128))
    bad = (v0 < 0) | (v0 >= 2048)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (1, 128))
    y_ref[...] = out


_embed_2048x128_64_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(64,),
    in_specs=[
        pl.BlockSpec((None, 1, 128), lambda s, indices_ref: (jnp.clip(indices_ref[s], 0, 2047), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 128), lambda s, indices_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_embed_2048x128_64_MESSAGES = (
    "kernel embed_2048x128_64: index {2} out of range for dim 0 of 'table' (size 2048) at y[{3}, {4}]",
)


def embed_2048x128_64_pure(table, indices, *, interpret=False):
    """Traceable embed_2048x128_64(table f32[2048, 128], indices i64[64]) -> y f32[64, 128]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    indices = jnp.asarray(indices).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _embed_2048x128_64_y,
        out_shape=(jax.ShapeDtypeStruct((64, 1, 128), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_embed_2048x128_64_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(indices), table.reshape(2048, 1, 128))
    y = y.reshape(-1)
    return y.reshape(64, 128), bad0


_embed_2048x128_64 = jax.jit(embed_2048x128_64_pure, static_argnames="interpret")


def embed_2048x128_64(table, indices, *, interpret=None):
    """embed_2048x128_64(table f32[2048, 128], indices i64[64]) -> y f32[64, 128]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_embed_2048x128_64, (table, indices), interpret)
    _raise_bad(bad, _embed_2048x128_64_MESSAGES)
    return outs[0]


# ---- kernel embed_256x64_1

def _embed_256x64_1_y(indices_ref, table_ref, y_ref, err_ref):
    # y[s, d] = table[indices[s], d]
    _record_init(err_ref)
    v0 = indices_ref[0]
    v1 = table_ref[...][0, :]
    v1 = v1.reshape((1, 64))
    bad = (v0 < 0) | (v0 >= 256)
    _record(err_ref, bad, 0, v0, (0, 0))
    out = jnp.broadcast_to(v1, (1, 64))
    out = out.reshape((64,))
    y_ref[...] = out


_embed_256x64_1_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(1,),
    in_specs=[
        pl.BlockSpec((None, 1, 64), lambda _, indices_ref: (jnp.clip(indices_ref[0], 0, 255), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((64,), lambda _, indices_ref: (np.int32(0),)), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_embed_256x64_1_MESSAGES = (
    "kernel embed_256x64_1: index {2} out of range for dim 0 of 'table' (size 256) at y[{3}, {4}]",
)


def embed_256x64_1_pure(table, indices, *, interpret=False):
    """Traceable embed_256x64_1(table f32[256, 64], indices i64[1]) -> y f32[1, 64]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    indices = jnp.asarray(indices).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _embed_256x64_1_y,
        out_shape=(jax.ShapeDtypeStruct((64,), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_embed_256x64_1_y_grid,
        interpret=interpret,
    )(_i32(indices), table.reshape(256, 1, 64))
    return y.reshape(1, 64), bad0


_embed_256x64_1 = jax.jit(embed_256x64_1_pure, static_argnames="interpret")


def embed_256x64_1(table, indices, *, interpret=None):
    """embed_256x64_1(table f32[256, 64], indices i64[1]) -> y f32[1, 64]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_embed_256x64_1, (table, indices), interpret)
    _raise_bad(bad, _embed_256x64_1_MESSAGES)
    return outs[0]


# ---- kernel embed_dup

def _embed_dup_y(indices_ref, table_ref, y_ref, err_ref):
    # y[s, d] = table[indices[s], d]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = indices_ref[pl.program_id(0)]
    v1 = table_ref[...][0, :]
    v1 = v1.reshape((1, 64))
    bad = (v0 < 0) | (v0 >= 256)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (1, 64))
    y_ref[...] = out


_embed_dup_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(8,),
    in_specs=[
        pl.BlockSpec((None, 1, 64), lambda s, indices_ref: (jnp.clip(indices_ref[s], 0, 255), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 64), lambda s, indices_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_embed_dup_MESSAGES = (
    "kernel embed_dup: index {2} out of range for dim 0 of 'table' (size 256) at y[{3}, {4}]",
)


def embed_dup_pure(table, indices, *, interpret=False):
    """Traceable embed_dup(table f32[256, 64], indices i64[8]) -> y f32[8, 64]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    indices = jnp.asarray(indices).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _embed_dup_y,
        out_shape=(jax.ShapeDtypeStruct((8, 1, 64), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_embed_dup_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(indices), table.reshape(256, 1, 64))
    y = y.reshape(-1)
    return y.reshape(8, 64), bad0


_embed_dup = jax.jit(embed_dup_pure, static_argnames="interpret")


def embed_dup(table, indices, *, interpret=None):
    """embed_dup(table f32[256, 64], indices i64[8]) -> y f32[8, 64]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_embed_dup, (table, indices), interpret)
    _raise_bad(bad, _embed_dup_MESSAGES)
    return outs[0]


# ---- kernel embed_bias

def _embed_bias_y(indices_ref, table_ref, bias_ref, y_ref, err_ref):
    # y[s, d] = (table[indices[s], d] + bias[s, d])
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = indices_ref[pl.program_id(0)]
    v1 = table_ref[...][0, :]
    v1 = v1.reshape((1, 64))
    bad = (v0 < 0) | (v0 >= 256)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    v2 = bias_ref[...][0, :]
    v2 = v2.reshape((1, 64))
    v3 = v1 + v2
    out = jnp.broadcast_to(v3, (1, 64))
    y_ref[...] = out


_embed_bias_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(32,),
    in_specs=[
        pl.BlockSpec((None, 1, 64), lambda s, indices_ref: (jnp.clip(indices_ref[s], 0, 255), np.int32(0), np.int32(0))),
        pl.BlockSpec((None, 1, 64), lambda s, indices_ref: (s, np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 64), lambda s, indices_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_embed_bias_MESSAGES = (
    "kernel embed_bias: index {2} out of range for dim 0 of 'table' (size 256) at y[{3}, {4}]",
)


def embed_bias_pure(table, indices, bias, *, interpret=False):
    """Traceable embed_bias(table f32[256, 64], indices i64[32], bias f32[32, 64]) -> y f32[32, 64]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    indices = jnp.asarray(indices).reshape(-1)
    bias = jnp.asarray(bias).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _embed_bias_y,
        out_shape=(jax.ShapeDtypeStruct((32, 1, 64), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_embed_bias_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(indices), table.reshape(256, 1, 64), bias.reshape(32, 1, 64))
    y = y.reshape(-1)
    return y.reshape(32, 64), bad0


_embed_bias = jax.jit(embed_bias_pure, static_argnames="interpret")


def embed_bias(table, indices, bias, *, interpret=None):
    """embed_bias(table f32[256, 64], indices i64[32], bias f32[32, 64]) -> y f32[32, 64]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_embed_bias, (table, indices, bias), interpret)
    _raise_bad(bad, _embed_bias_MESSAGES)
    return outs[0]


# ---- kernel embed_scale

def _embed_scale_y(indices_ref, table_ref, scale_ref, y_ref, err_ref):
    # y[s, d] = (table[indices[s], d] * scale[d])
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = indices_ref[pl.program_id(0)]
    v1 = table_ref[...][0, :]
    v1 = v1.reshape((1, 64))
    bad = (v0 < 0) | (v0 >= 256)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    v2 = scale_ref[...]
    v2 = v2.reshape((1, 64))
    v3 = v1 * v2
    out = jnp.broadcast_to(v3, (1, 64))
    y_ref[...] = out


_embed_scale_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(32,),
    in_specs=[
        pl.BlockSpec((None, 1, 64), lambda s, indices_ref: (jnp.clip(indices_ref[s], 0, 255), np.int32(0), np.int32(0))),
        pl.BlockSpec((64,), lambda s, indices_ref: (np.int32(0),))],
    out_specs=[pl.BlockSpec((None, 1, 64), lambda s, indices_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_embed_scale_MESSAGES = (
    "kernel embed_scale: index {2} out of range for dim 0 of 'table' (size 256) at y[{3}, {4}]",
)


def embed_scale_pure(table, indices, scale, *, interpret=False):
    """Traceable embed_scale(table f32[256, 64], indices i64[32], scale f32[64]) -> y f32[32, 64]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    indices = jnp.asarray(indices).reshape(-1)
    scale = jnp.asarray(scale).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _embed_scale_y,
        out_shape=(jax.ShapeDtypeStruct((32, 1, 64), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_embed_scale_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(indices), table.reshape(256, 1, 64), scale)
    y = y.reshape(-1)
    return y.reshape(32, 64), bad0


_embed_scale = jax.jit(embed_scale_pure, static_argnames="interpret")


def embed_scale(table, indices, scale, *, interpret=None):
    """embed_scale(table f32[256, 64], indices i64[32], scale f32[64]) -> y f32[32, 64]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_embed_scale, (table, indices, scale), interpret)
    _raise_bad(bad, _embed_scale_MESSAGES)
    return outs[0]


# ---- kernel embed_bias_scale

def _embed_bias_scale_y(indices_ref, table_ref, bias_ref, scale_ref, y_ref, err_ref):
    # y[s, d] = ((table[indices[s], d] + bias[s, d]) * scale[d])
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = indices_ref[pl.program_id(0)]
    v1 = table_ref[...][0, :]
    v1 = v1.reshape((1, 64))
    bad = (v0 < 0) | (v0 >= 256)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    v2 = bias_ref[...][0, :]
    v2 = v2.reshape((1, 64))
    v3 = v1 + v2
    v4 = scale_ref[...]
    v4 = v4.reshape((1, 64))
    v5 = v3 * v4
    out = jnp.broadcast_to(v5, (1, 64))
    y_ref[...] = out


_embed_bias_scale_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(32,),
    in_specs=[
        pl.BlockSpec((None, 1, 64), lambda s, indices_ref: (jnp.clip(indices_ref[s], 0, 255), np.int32(0), np.int32(0))),
        pl.BlockSpec((None, 1, 64), lambda s, indices_ref: (s, np.int32(0), np.int32(0))),
        pl.BlockSpec((64,), lambda s, indices_ref: (np.int32(0),))],
    out_specs=[pl.BlockSpec((None, 1, 64), lambda s, indices_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_embed_bias_scale_MESSAGES = (
    "kernel embed_bias_scale: index {2} out of range for dim 0 of 'table' (size 256) at y[{3}, {4}]",
)


def embed_bias_scale_pure(table, indices, bias, scale, *, interpret=False):
    """Traceable embed_bias_scale(table f32[256, 64], indices i64[32], bias f32[32, 64], scale f32[64]) -> y f32[32, 64]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    indices = jnp.asarray(indices).reshape(-1)
    bias = jnp.asarray(bias).reshape(-1)
    scale = jnp.asarray(scale).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _embed_bias_scale_y,
        out_shape=(jax.ShapeDtypeStruct((32, 1, 64), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_embed_bias_scale_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(indices), table.reshape(256, 1, 64), bias.reshape(32, 1, 64), scale)
    y = y.reshape(-1)
    return y.reshape(32, 64), bad0


_embed_bias_scale = jax.jit(embed_bias_scale_pure, static_argnames="interpret")


def embed_bias_scale(table, indices, bias, scale, *, interpret=None):
    """embed_bias_scale(table f32[256, 64], indices i64[32], bias f32[32, 64], scale f32[64]) -> y f32[32, 64]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_embed_bias_scale, (table, indices, bias, scale), interpret)
    _raise_bad(bad, _embed_bias_scale_MESSAGES)
    return outs[0]


# ---- kernel embedding

def _embedding_y(indices_ref, weight_ref, y_ref, err_ref):
    # y[s, d] = weight[indices[s], d]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = indices_ref[pl.program_id(0)]
    v1 = weight_ref[...][0, :]
    v1 = v1.reshape((1, 32))
    bad = (v0 < 0) | (v0 >= 100)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (1, 32))
    y_ref[...] = out


_embedding_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(16,),
    in_specs=[
        pl.BlockSpec((None, 1, 32), lambda s, indices_ref: (jnp.clip(indices_ref[s], 0, 99), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 32), lambda s, indices_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_embedding_MESSAGES = (
    "kernel embedding: index {2} out of range for dim 0 of 'weight' (size 100) at y[{3}, {4}]",
)


def embedding_pure(weight, indices, *, interpret=False):
    """Traceable embedding(weight f32[100, 32], indices i64[16]) -> y f32[16, 32]. Returns the outputs, then the bad-index records."""
    weight = jnp.asarray(weight).reshape(-1)
    indices = jnp.asarray(indices).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _embedding_y,
        out_shape=(jax.ShapeDtypeStruct((16, 1, 32), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_embedding_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(indices), weight.reshape(100, 1, 32))
    y = y.reshape(-1)
    return y.reshape(16, 32), bad0


_embedding = jax.jit(embedding_pure, static_argnames="interpret")


def embedding(weight, indices, *, interpret=None):
    """embedding(weight f32[100, 32], indices i64[16]) -> y f32[16, 32]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_embedding, (weight, indices), interpret)
    _raise_bad(bad, _embedding_MESSAGES)
    return outs[0]


# ---- kernel gather_wrap

def _gather_wrap_y(idx_ref, table_ref, y_ref, err_ref):
    # y[s, d] = table[wrap(idx[s], 16), d]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = idx_ref[pl.program_id(0)]
    v2 = jnp.where(v0 < 0, v0 + jnp.int32(16), v0)
    v3 = table_ref[...][0, :]
    v3 = v3.reshape((1, 8))
    bad = (v2 < 0) | (v2 >= 16)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v3, (1, 8))
    y_ref[...] = out


_gather_wrap_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(12,),
    in_specs=[
        pl.BlockSpec((None, 1, 8), lambda s, idx_ref: (jnp.clip(jnp.where(idx_ref[s] < 0, idx_ref[s] + 16, idx_ref[s]), 0, 15), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 8), lambda s, idx_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_wrap_MESSAGES = (
    "kernel gather_wrap: index {2} out of range for dim 0 of 'table' (size 16; wrap() accepts [-16, 16)) at y[{3}, {4}]",
)


def gather_wrap_pure(table, idx, *, interpret=False):
    """Traceable gather_wrap(table f32[16, 8], idx i64[12]) -> y f32[12, 8]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _gather_wrap_y,
        out_shape=(jax.ShapeDtypeStruct((12, 1, 8), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_wrap_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(idx), table.reshape(16, 1, 8))
    y = y.reshape(-1)
    return y.reshape(12, 8), bad0


_gather_wrap = jax.jit(gather_wrap_pure, static_argnames="interpret")


def gather_wrap(table, idx, *, interpret=None):
    """gather_wrap(table f32[16, 8], idx i64[12]) -> y f32[12, 8]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_wrap, (table, idx), interpret)
    _raise_bad(bad, _gather_wrap_MESSAGES)
    return outs[0]


# ---- kernel gather_wrap_sym

def _gather_wrap_sym_out(idx_ref, table_ref, scale_ref, out_ref, err_ref):
    # out[s, d] = (table[wrap(idx[s], V), d] * scale[d])
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = idx_ref[pl.program_id(0)]
    v2 = jnp.where(v0 < 0, v0 + jnp.int32(100), v0)
    v3 = table_ref[...][0, :]
    v3 = v3.reshape((1, 32))
    bad = (v2 < 0) | (v2 >= 100)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    v4 = scale_ref[...]
    v4 = v4.reshape((1, 32))
    v5 = v3 * v4
    out = jnp.broadcast_to(v5, (1, 32))
    out_ref[...] = out


_gather_wrap_sym_out_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(16,),
    in_specs=[
        pl.BlockSpec((None, 1, 32), lambda s, idx_ref: (jnp.clip(jnp.where(idx_ref[s] < 0, idx_ref[s] + 100, idx_ref[s]), 0, 99), np.int32(0), np.int32(0))),
        pl.BlockSpec((32,), lambda s, idx_ref: (np.int32(0),))],
    out_specs=[pl.BlockSpec((None, 1, 32), lambda s, idx_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_wrap_sym_MESSAGES = (
    "kernel gather_wrap_sym: index {2} out of range for dim 0 of 'table' (size 100; wrap() accepts [-100, 100)) at out[{3}, {4}]",
)


def gather_wrap_sym_pure(table, idx, scale, *, interpret=False):
    """Traceable gather_wrap_sym(table f32[100, 32], idx i64[16], scale f32[32]) -> out f32[16, 32]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    scale = jnp.asarray(scale).reshape(-1)
    # out
    out, bad0 = pl.pallas_call(
        _gather_wrap_sym_out,
        out_shape=(jax.ShapeDtypeStruct((16, 1, 32), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_wrap_sym_out_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(idx), table.reshape(100, 1, 32), scale)
    out = out.reshape(-1)
    return out.reshape(16, 32), bad0


_gather_wrap_sym = jax.jit(gather_wrap_sym_pure, static_argnames="interpret")


def gather_wrap_sym(table, idx, scale, *, interpret=None):
    """gather_wrap_sym(table f32[100, 32], idx i64[16], scale f32[32]) -> out f32[16, 32]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_wrap_sym, (table, idx, scale), interpret)
    _raise_bad(bad, _gather_wrap_sym_MESSAGES)
    return outs[0]


# ---- kernel gather_two

def _gather_two_y(i0_ref, i1_ref, a_ref, b_ref, y_ref, err_ref):
    # y[s] = (a[i0[s]] + b[i1[s]])
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = i0_ref[pl.program_id(0)]
    v1 = a_ref[...][0, 0]
    v1 = v1.reshape((1,))
    bad = (v0 < 0) | (v0 >= 32)
    _record(err_ref, bad, 0, v0, (pl.program_id(0),))
    v2 = i1_ref[pl.program_id(0)]
    v4 = b_ref[...][0, 0]
    v4 = v4.reshape((1,))
    bad = (v2 < 0) | (v2 >= 20)
    _record(err_ref, bad, 1, v2, (pl.program_id(0),))
    v5 = v1 + v4
    out = jnp.broadcast_to(v5, (1,))
    out = out.reshape((1, 1))
    y_ref[...] = out


_gather_two_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=2,
    grid=(10,),
    in_specs=[
        pl.BlockSpec((None, 1, 1), lambda s, i0_ref, i1_ref: (jnp.clip(i0_ref[s], 0, 31), np.int32(0), np.int32(0))),
        pl.BlockSpec((None, 1, 1), lambda s, i0_ref, i1_ref: (jnp.clip(i1_ref[s], 0, 19), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 1), lambda s, i0_ref, i1_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_two_MESSAGES = (
    "kernel gather_two: index {2} out of range for dim 0 of 'a' (size 32) at y[{3}]",
    "kernel gather_two: index {2} out of range for dim 0 of 'b' (size 20) at y[{3}]",
)


def gather_two_pure(a, b, i0, i1, *, interpret=False):
    """Traceable gather_two(a f32[32], b f32[20], i0 i64[10], i1 i32[10]) -> y f32[10]. Returns the outputs, then the bad-index records."""
    a = jnp.asarray(a).reshape(-1)
    b = jnp.asarray(b).reshape(-1)
    i0 = jnp.asarray(i0).reshape(-1)
    i1 = jnp.asarray(i1).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _gather_two_y,
        out_shape=(jax.ShapeDtypeStruct((10, 1, 1), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_two_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(i0), _i32(i1), a.reshape(32, 1, 1), b.reshape(20, 1, 1))
    y = y.reshape(-1)
    return y.reshape(10), bad0


_gather_two = jax.jit(gather_two_pure, static_argnames="interpret")


def gather_two(a, b, i0, i1, *, interpret=None):
    """gather_two(a f32[32], b f32[20], i0 i64[10], i1 i32[10]) -> y f32[10]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_two, (a, b, i0, i1), interpret)
    _raise_bad(bad, _gather_two_MESSAGES)
    return outs[0]


# ---- kernel gather_2d

def _gather_2d_y(r_ref, c_ref, t_ref, y_ref, err_ref):
    # y[s, d] = t[r[s], c[s], d]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = r_ref[pl.program_id(0)]
    v1 = c_ref[pl.program_id(0)]
    v2 = t_ref[...][0, :]
    v2 = v2.reshape((1, 4))
    bad = (v0 < 0) | (v0 >= 8)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    bad = (v1 < 0) | (v1 >= 6)
    _record(err_ref, bad, 1, v1, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v2, (1, 4))
    y_ref[...] = out


_gather_2d_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=2,
    grid=(5,),
    in_specs=[
        pl.BlockSpec((None, None, 1, 4), lambda s, r_ref, c_ref: (jnp.clip(r_ref[s], 0, 7), jnp.clip(c_ref[s], 0, 5), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 4), lambda s, r_ref, c_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_2d_MESSAGES = (
    "kernel gather_2d: index {2} out of range for dim 0 of 't' (size 8) at y[{3}, {4}]",
    "kernel gather_2d: index {2} out of range for dim 1 of 't' (size 6) at y[{3}, {4}]",
)


def gather_2d_pure(t, r, c, *, interpret=False):
    """Traceable gather_2d(t f32[8, 6, 4], r i64[5], c i64[5]) -> y f32[5, 4]. Returns the outputs, then the bad-index records."""
    t = jnp.asarray(t).reshape(-1)
    r = jnp.asarray(r).reshape(-1)
    c = jnp.asarray(c).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _gather_2d_y,
        out_shape=(jax.ShapeDtypeStruct((5, 1, 4), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_2d_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(r), _i32(c), t.reshape(8, 6, 1, 4))
    y = y.reshape(-1)
    return y.reshape(5, 4), bad0


_gather_2d = jax.jit(gather_2d_pure, static_argnames="interpret")


def gather_2d(t, r, c, *, interpret=None):
    """gather_2d(t f32[8, 6, 4], r i64[5], c i64[5]) -> y f32[5, 4]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_2d, (t, r, c), interpret)
    _raise_bad(bad, _gather_2d_MESSAGES)
    return outs[0]


# ---- kernel gather_idx2d

def _gather_idx2d_y(idx_ref, table_ref, y_ref, err_ref):
    # y[b, s, d] = table[idx[b, s], d]
    @pl.when((pl.program_id(0) == 0) & (pl.program_id(1) == 0))
    def _init():
        _record_init(err_ref)
    v0 = idx_ref[(5*pl.program_id(0) + pl.program_id(1))]
    v1 = table_ref[...][0, :]
    v1 = v1.reshape((1, 1, 8))
    bad = (v0 < 0) | (v0 >= 20)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), pl.program_id(1), 0))
    out = jnp.broadcast_to(v1, (1, 1, 8))
    out = out.reshape((1, 8))
    y_ref[...] = out


_gather_idx2d_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(3, 5),
    in_specs=[
        pl.BlockSpec((None, 1, 8), lambda b, s, idx_ref: (jnp.clip(idx_ref[(5*b + s)], 0, 19), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, None, 1, 8), lambda b, s, idx_ref: (b, s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_idx2d_MESSAGES = (
    "kernel gather_idx2d: index {2} out of range for dim 0 of 'table' (size 20) at y[{3}, {4}, {5}]",
)


def gather_idx2d_pure(table, idx, *, interpret=False):
    """Traceable gather_idx2d(table f32[20, 8], idx i64[3, 5]) -> y f32[3, 5, 8]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _gather_idx2d_y,
        out_shape=(jax.ShapeDtypeStruct((3, 5, 1, 8), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_idx2d_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "arbitrary")),
        interpret=interpret,
    )(_i32(idx), table.reshape(20, 1, 8))
    y = y.reshape(-1)
    return y.reshape(3, 5, 8), bad0


_gather_idx2d = jax.jit(gather_idx2d_pure, static_argnames="interpret")


def gather_idx2d(table, idx, *, interpret=None):
    """gather_idx2d(table f32[20, 8], idx i64[3, 5]) -> y f32[3, 5, 8]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_idx2d, (table, idx), interpret)
    _raise_bad(bad, _gather_idx2d_MESSAGES)
    return outs[0]


# ---- kernel gather_transposed_view

def _gather_transposed_view_y(idx_ref, table_ref, y_ref, err_ref):
    # y[s, d] = table[idx[s], d]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = idx_ref[pl.program_id(0)]
    v1 = table_ref[...][:, 0, 0]
    v1 = v1.reshape((1, 8))
    bad = (v0 < 0) | (v0 >= 16)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (1, 8))
    y_ref[...] = out


_gather_transposed_view_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(6,),
    in_specs=[
        pl.BlockSpec((8, None, 1, 1), lambda s, idx_ref: (np.int32(0), jnp.clip(idx_ref[s], 0, 15), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 8), lambda s, idx_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_transposed_view_MESSAGES = (
    "kernel gather_transposed_view: index {2} out of range for dim 0 of 'table' (size 16) at y[{3}, {4}]",
)


def gather_transposed_view_pure(table, idx, *, interpret=False):
    """Traceable gather_transposed_view(table f32[16, 8] (storage of 128), idx i64[6]) -> y f32[6, 8]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _gather_transposed_view_y,
        out_shape=(jax.ShapeDtypeStruct((6, 1, 8), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_transposed_view_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(idx), table.reshape(8, 16, 1, 1))
    y = y.reshape(-1)
    return y.reshape(6, 8), bad0


_gather_transposed_view = jax.jit(gather_transposed_view_pure, static_argnames="interpret")


def gather_transposed_view(table, idx, *, interpret=None):
    """gather_transposed_view(table f32[16, 8] (storage of 128), idx i64[6]) -> y f32[6, 8]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_transposed_view, (table, idx), interpret)
    _raise_bad(bad, _gather_transposed_view_MESSAGES)
    return outs[0]


# ---- kernel gather_transposed_subscript

def _gather_transposed_subscript_y(idx_ref, t_ref, y_ref, err_ref):
    # y[s, d] = t[d, idx[s]]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = idx_ref[pl.program_id(0)]
    v1 = t_ref[...][:, 0, 0]
    v1 = v1.reshape((1, 8))
    bad = (v0 < 0) | (v0 >= 16)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (1, 8))
    y_ref[...] = out


_gather_transposed_subscript_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(6,),
    in_specs=[
        pl.BlockSpec((8, None, 1, 1), lambda s, idx_ref: (np.int32(0), jnp.clip(idx_ref[s], 0, 15), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 8), lambda s, idx_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_transposed_subscript_MESSAGES = (
    "kernel gather_transposed_subscript: index {2} out of range for dim 1 of 't' (size 16) at y[{3}, {4}]",
)


def gather_transposed_subscript_pure(t, idx, *, interpret=False):
    """Traceable gather_transposed_subscript(t f32[8, 16], idx i64[6]) -> y f32[6, 8]. Returns the outputs, then the bad-index records."""
    t = jnp.asarray(t).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _gather_transposed_subscript_y,
        out_shape=(jax.ShapeDtypeStruct((6, 1, 8), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_transposed_subscript_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(idx), t.reshape(8, 16, 1, 1))
    y = y.reshape(-1)
    return y.reshape(6, 8), bad0


_gather_transposed_subscript = jax.jit(gather_transposed_subscript_pure, static_argnames="interpret")


def gather_transposed_subscript(t, idx, *, interpret=None):
    """gather_transposed_subscript(t f32[8, 16], idx i64[6]) -> y f32[6, 8]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_transposed_subscript, (t, idx), interpret)
    _raise_bad(bad, _gather_transposed_subscript_MESSAGES)
    return outs[0]


# ---- kernel gather_middle

def _gather_middle_y(idx_ref, x_ref, y_ref, err_ref):
    # y[a, s, c] = x[a, idx[s], c]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = idx_ref[pl.program_id(0)]
    v1 = x_ref[...][:, 0, :]
    v1 = v1.reshape((4, 1, 6))
    bad = (v0 < 0) | (v0 >= 10)
    _record(err_ref, bad, 0, v0, (0, pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (4, 1, 6))
    y_ref[...] = out


_gather_middle_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(3,),
    in_specs=[
        pl.BlockSpec((4, None, 1, 6), lambda s, idx_ref: (np.int32(0), jnp.clip(idx_ref[s], 0, 9), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((4, None, 1, 6), lambda s, idx_ref: (np.int32(0), s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_middle_MESSAGES = (
    "kernel gather_middle: index {2} out of range for dim 1 of 'x' (size 10) at y[{3}, {4}, {5}]",
)


def gather_middle_pure(x, idx, *, interpret=False):
    """Traceable gather_middle(x f32[4, 10, 6], idx i64[3]) -> y f32[4, 3, 6]. Returns the outputs, then the bad-index records."""
    x = jnp.asarray(x).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _gather_middle_y,
        out_shape=(jax.ShapeDtypeStruct((4, 3, 1, 6), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_middle_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(idx), x.reshape(4, 10, 1, 6))
    y = y.reshape(-1)
    return y.reshape(4, 3, 6), bad0


_gather_middle = jax.jit(gather_middle_pure, static_argnames="interpret")


def gather_middle(x, idx, *, interpret=None):
    """gather_middle(x f32[4, 10, 6], idx i64[3]) -> y f32[4, 3, 6]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_middle, (x, idx), interpret)
    _raise_bad(bad, _gather_middle_MESSAGES)
    return outs[0]


# ---- kernel gather_torch_dim1

def _gather_torch_dim1_y(idx_ref, x_ref, y_ref, err_ref):
    # y[a, s, c] = x[a, idx[a, s, c], c]
    @pl.when((pl.program_id(0) == 0) & (pl.program_id(1) == 0) & (pl.program_id(2) == 0))
    def _init():
        _record_init(err_ref)
    v0 = idx_ref[(18*pl.program_id(0) + 6*pl.program_id(1) + pl.program_id(2))]
    v1 = x_ref[...][0, 0]
    v1 = v1.reshape((1, 1, 1))
    bad = (v0 < 0) | (v0 >= 10)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), pl.program_id(1), pl.program_id(2)))
    out = jnp.broadcast_to(v1, (1, 1, 1))
    out = out.reshape((1, 1))
    y_ref[...] = out


_gather_torch_dim1_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(4, 3, 6),
    in_specs=[
        pl.BlockSpec((None, None, None, 1, 1), lambda a, s, c, idx_ref: (a, jnp.clip(idx_ref[(18*a + 6*s + c)], 0, 9), c, np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, None, None, 1, 1), lambda a, s, c, idx_ref: (a, s, c, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_torch_dim1_MESSAGES = (
    "kernel gather_torch_dim1: index {2} out of range for dim 1 of 'x' (size 10) at y[{3}, {4}, {5}]",
)


def gather_torch_dim1_pure(x, idx, *, interpret=False):
    """Traceable gather_torch_dim1(x f32[4, 10, 6], idx i64[4, 3, 6]) -> y f32[4, 3, 6]. Returns the outputs, then the bad-index records."""
    x = jnp.asarray(x).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _gather_torch_dim1_y,
        out_shape=(jax.ShapeDtypeStruct((4, 3, 6, 1, 1), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_torch_dim1_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary", "arbitrary", "arbitrary")),
        interpret=interpret,
    )(_i32(idx), x.reshape(4, 10, 6, 1, 1))
    y = y.reshape(-1)
    return y.reshape(4, 3, 6), bad0


_gather_torch_dim1 = jax.jit(gather_torch_dim1_pure, static_argnames="interpret")


def gather_torch_dim1(x, idx, *, interpret=None):
    """gather_torch_dim1(x f32[4, 10, 6], idx i64[4, 3, 6]) -> y f32[4, 3, 6]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_torch_dim1, (x, idx), interpret)
    _raise_bad(bad, _gather_torch_dim1_MESSAGES)
    return outs[0]


# ---- kernel gather_strided_index

def _gather_strided_index_y(idx_ref, table_ref, y_ref, err_ref):
    # y[s, d] = table[idx[s], d]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = idx_ref[(2*pl.program_id(0))]
    v1 = table_ref[...][0, :]
    v1 = v1.reshape((1, 4))
    bad = (v0 < 0) | (v0 >= 16)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (1, 4))
    y_ref[...] = out


_gather_strided_index_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(16,),
    in_specs=[
        pl.BlockSpec((None, 1, 4), lambda s, idx_ref: (jnp.clip(idx_ref[(2*s)], 0, 15), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 4), lambda s, idx_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_strided_index_MESSAGES = (
    "kernel gather_strided_index: index {2} out of range for dim 0 of 'table' (size 16) at y[{3}, {4}]",
)


def gather_strided_index_pure(table, idx, *, interpret=False):
    """Traceable gather_strided_index(table f32[16, 4], idx i64[16] (storage of 31)) -> y f32[16, 4]. Returns the outputs, then the bad-index records."""
    table = jnp.asarray(table).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _gather_strided_index_y,
        out_shape=(jax.ShapeDtypeStruct((16, 1, 4), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_strided_index_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(idx), table.reshape(16, 1, 4))
    y = y.reshape(-1)
    return y.reshape(16, 4), bad0


_gather_strided_index = jax.jit(gather_strided_index_pure, static_argnames="interpret")


def gather_strided_index(table, idx, *, interpret=None):
    """gather_strided_index(table f32[16, 4], idx i64[16] (storage of 31)) -> y f32[16, 4]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_strided_index, (table, idx), interpret)
    _raise_bad(bad, _gather_strided_index_MESSAGES)
    return outs[0]


# ---- kernel gather_empty


def gather_empty_pure(table, idx, *, interpret=False):
    """Traceable gather_empty(table f32[16, 4], idx i64[0]) -> y f32[0, 4]."""
    table = jnp.asarray(table).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # y
    y = jnp.zeros((0,), jnp.float32)  # no elements
    return y.reshape(0, 4)


_gather_empty = jax.jit(gather_empty_pure, static_argnames="interpret")


def gather_empty(table, idx, *, interpret=None):
    """gather_empty(table f32[16, 4], idx i64[0]) -> y f32[0, 4]."""
    return _run(_gather_empty, (table, idx), interpret)


# ---- kernel gather_clamped

def _gather_clamped_y_table(table, idx):
    """table[clamp(idx[s], 0, 15), d] over (8, 4), in XLA: the index clamp(idx[s], 0, 15) is not a load of an index tensor at grid-level positions."""
    s = jax.lax.broadcasted_iota(jnp.int32, (8, 1), 0)
    d = jax.lax.broadcasted_iota(jnp.int32, (1, 4), 1)
    return jnp.take(table, jnp.broadcast_to((d + 4*jnp.clip(jnp.take(idx, s, mode="clip"), 0, 15)), (8, 4)), mode="clip")


def _gather_clamped_y(table_ref, y_ref):
    # y[s, d] = table[clamp(idx[s], 0, 15), d]
    v4 = table_ref[...]
    out = v4
    y_ref[...] = out


_gather_clamped_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((8, 4), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((8, 4), lambda _: (np.int32(0), np.int32(0))))


def gather_clamped_pure(table, idx, *, interpret=False):
    """Traceable gather_clamped(table f32[16, 4], idx i64[8]) -> y f32[8, 4]."""
    table = jnp.asarray(table).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # y
    y = pl.pallas_call(
        _gather_clamped_y,
        out_shape=jax.ShapeDtypeStruct((8, 4), jnp.float32),
        grid_spec=_gather_clamped_y_grid,
        interpret=interpret,
    )(_gather_clamped_y_table(table, idx))
    y = y.reshape(-1)
    return y.reshape(8, 4)


_gather_clamped = jax.jit(gather_clamped_pure, static_argnames="interpret")


def gather_clamped(table, idx, *, interpret=None):
    """gather_clamped(table f32[16, 4], idx i64[8]) -> y f32[8, 4]."""
    return _run(_gather_clamped, (table, idx), interpret)


# ---- kernel gather_flipped_table

def _gather_flipped_table_y(idx_ref, t_ref, y_ref, err_ref):
    # y[s, d] = t[idx[s], d]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = idx_ref[pl.program_id(0)]
    v1 = t_ref[...][0, :]
    v1 = v1.reshape((1, 4))
    bad = (v0 < 0) | (v0 >= 16)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (1, 4))
    y_ref[...] = out


_gather_flipped_table_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(6,),
    in_specs=[
        pl.BlockSpec((None, 1, 4), lambda s, idx_ref: (jnp.clip(15 - idx_ref[s], 0, 15), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 4), lambda s, idx_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_flipped_table_MESSAGES = (
    "kernel gather_flipped_table: index {2} out of range for dim 0 of 't' (size 16) at y[{3}, {4}]",
)


def gather_flipped_table_pure(t, idx, *, interpret=False):
    """Traceable gather_flipped_table(t f32[16, 4] (storage of 64), idx i64[6]) -> y f32[6, 4]. Returns the outputs, then the bad-index records."""
    t = jnp.asarray(t).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _gather_flipped_table_y,
        out_shape=(jax.ShapeDtypeStruct((6, 1, 4), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_flipped_table_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(idx), t.reshape(16, 1, 4))
    y = y.reshape(-1)
    return y.reshape(6, 4), bad0


_gather_flipped_table = jax.jit(gather_flipped_table_pure, static_argnames="interpret")


def gather_flipped_table(t, idx, *, interpret=None):
    """gather_flipped_table(t f32[16, 4] (storage of 64), idx i64[6]) -> y f32[6, 4]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_flipped_table, (t, idx), interpret)
    _raise_bad(bad, _gather_flipped_table_MESSAGES)
    return outs[0]


# ---- kernel gather_flat_next_row

def _gather_flat_next_row_y(idx_ref, t_ref, y_ref, err_ref):
    # y[s, d] = t.flat[(((4 * idx[s]) + 4) + d)]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = idx_ref[pl.program_id(0)]
    v1 = t_ref[...][0, :]
    v1 = v1.reshape((1, 4))
    bad = (1 + idx_ref[pl.program_id(0)] < 0) | (1 + idx_ref[pl.program_id(0)] >= 16)
    _record(err_ref, bad, 0, (0 + 4*idx_ref[pl.program_id(0)] + 4) - 0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (1, 4))
    y_ref[...] = out


_gather_flat_next_row_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(6,),
    in_specs=[
        pl.BlockSpec((None, 1, 4), lambda s, idx_ref: (jnp.clip(1 + idx_ref[s], 0, 15), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 4), lambda s, idx_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_gather_flat_next_row_MESSAGES = (
    "kernel gather_flat_next_row: flat offset {2} is out of range for the storage of 't' (64 elements) at y[{3}, {4}]",
)


def gather_flat_next_row_pure(t, idx, *, interpret=False):
    """Traceable gather_flat_next_row(t f32[64], idx i64[6]) -> y f32[6, 4]. Returns the outputs, then the bad-index records."""
    t = jnp.asarray(t).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # y
    y, bad0 = pl.pallas_call(
        _gather_flat_next_row_y,
        out_shape=(jax.ShapeDtypeStruct((6, 1, 4), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_gather_flat_next_row_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(idx), t.reshape(16, 1, 4))
    y = y.reshape(-1)
    return y.reshape(6, 4), bad0


_gather_flat_next_row = jax.jit(gather_flat_next_row_pure, static_argnames="interpret")


def gather_flat_next_row(t, idx, *, interpret=None):
    """gather_flat_next_row(t f32[64], idx i64[6]) -> y f32[6, 4]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_gather_flat_next_row, (t, idx), interpret)
    _raise_bad(bad, _gather_flat_next_row_MESSAGES)
    return outs[0]
