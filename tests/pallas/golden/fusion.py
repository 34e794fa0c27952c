"""Pallas kernels of examples/fusion.ath, emitted by athene (target pallas). Do not edit.

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


# ---- kernel fused_transpose_scale

def _fused_transpose_scale_y(x_ref, s_ref, y_ref):
    # y[j, i] = (t[i, j] + s[i])
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v3 = v0 * jnp.float32(2)
    v4 = s_ref[...]
    v4 = v4.reshape((1, 64))
    v5 = v3 + v4
    out = v5
    y_ref[...] = out


_fused_transpose_scale_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((64, 48), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((64,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((48, 64), lambda _: (np.int32(0), np.int32(0))))


def fused_transpose_scale_pure(x, s, *, interpret=False):
    """Traceable fused_transpose_scale(x f32[64, 48], s f32[64]) -> y f32[48, 64]."""
    x = jnp.asarray(x).reshape(-1)
    s = jnp.asarray(s).reshape(-1)
    # y
    y = pl.pallas_call(
        _fused_transpose_scale_y,
        out_shape=jax.ShapeDtypeStruct((48, 64), jnp.float32),
        grid_spec=_fused_transpose_scale_y_grid,
        interpret=interpret,
    )(x.reshape(64, 48), s)
    y = y.reshape(-1)
    return y.reshape(48, 64)


_fused_transpose_scale = jax.jit(fused_transpose_scale_pure, static_argnames="interpret")


def fused_transpose_scale(x, s, *, interpret=None):
    """fused_transpose_scale(x f32[64, 48], s f32[64]) -> y f32[48, 64]."""
    return _run(_fused_transpose_scale, (x, s), interpret)


# ---- kernel softmax_rows

def _softmax_rows_e(x_ref, e_ref):
    # e[i, j] = exp(x[i, j])
    v0 = x_ref[...]
    v1 = jnp.exp(v0)
    out = v1
    e_ref[...] = out


_softmax_rows_e_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((32, 40), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((32, 40), lambda _: (np.int32(0), np.int32(0))))

def _softmax_rows_y(e_ref, e2_ref, y_ref):
    # y[i, j] = (e[i, j] / sum(k: e[i, k]))
    v0 = e_ref[...]
    v0 = v0.reshape((32, 40, 1))
    v1 = e2_ref[...]
    v1 = v1.reshape((32, 1, 40))
    v2 = jnp.broadcast_to(v1, (32, 1, 40))
    v2 = jnp.sum(v2, axis=(2,), keepdims=True).astype(jnp.float32)
    v3 = v0 / v2
    out = v3
    out = out.reshape((32, 40))
    y_ref[...] = out


_softmax_rows_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((32, 40), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((32, 40), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((32, 40), lambda _: (np.int32(0), np.int32(0))))


def softmax_rows_pure(x, *, interpret=False):
    """Traceable softmax_rows(x f32[32, 40]) -> y f32[32, 40]."""
    x = jnp.asarray(x).reshape(-1)
    # e
    e = pl.pallas_call(
        _softmax_rows_e,
        out_shape=jax.ShapeDtypeStruct((32, 40), jnp.float32),
        grid_spec=_softmax_rows_e_grid,
        interpret=interpret,
    )(x.reshape(32, 40))
    e = e.reshape(-1)
    # y
    y = pl.pallas_call(
        _softmax_rows_y,
        out_shape=jax.ShapeDtypeStruct((32, 40), jnp.float32),
        grid_spec=_softmax_rows_y_grid,
        interpret=interpret,
    )(e.reshape(32, 40), e.reshape(32, 40))
    y = y.reshape(-1)
    return y.reshape(32, 40)


_softmax_rows = jax.jit(softmax_rows_pure, static_argnames="interpret")


def softmax_rows(x, *, interpret=None):
    """softmax_rows(x f32[32, 40]) -> y f32[32, 40]."""
    return _run(_softmax_rows, (x,), interpret)


# ---- kernel fused_view_twice

def _fused_view_twice_y(x_ref, x2_ref, y_ref):
    # y[i, j] = (t[i, j] * t[j, i])
    v0 = x_ref[...]
    v0 = jnp.transpose(v0, (1, 0))
    v1 = x2_ref[...]
    v2 = v0 * v1
    out = v2
    y_ref[...] = out


_fused_view_twice_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 16), lambda _: (np.int32(0), np.int32(0))),
        pl.BlockSpec((16, 16), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 16), lambda _: (np.int32(0), np.int32(0))))


def fused_view_twice_pure(x, *, interpret=False):
    """Traceable fused_view_twice(x f32[16, 16]) -> y f32[16, 16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _fused_view_twice_y,
        out_shape=jax.ShapeDtypeStruct((16, 16), jnp.float32),
        grid_spec=_fused_view_twice_y_grid,
        interpret=interpret,
    )(x.reshape(16, 16), x.reshape(16, 16))
    y = y.reshape(-1)
    return y.reshape(16, 16)


_fused_view_twice = jax.jit(fused_view_twice_pure, static_argnames="interpret")


def fused_view_twice(x, *, interpret=None):
    """fused_view_twice(x f32[16, 16]) -> y f32[16, 16]."""
    return _run(_fused_view_twice, (x,), interpret)


# ---- kernel fused_chain

def _fused_chain_y_x(x):
    """x[i, j] over (12, 8), in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64."""
    a = x.reshape(8, 12)
    a = jnp.transpose(a, (1, 0))
    return a


def _fused_chain_y(x_ref):
    # y[j, i] = f32(b[j, i])
    v0 = x_ref[...]
    j = jax.lax.broadcasted_iota(jnp.int32, (12, 1), 0)
    v2 = j.astype(jnp.float64)
    v3 = v0 + v2
    v5 = v3 * jnp.float64(0.5)
    v6 = v5.astype(jnp.float32)
    return jnp.broadcast_to(v6, (12, 8)).reshape(-1).astype(jnp.float32)


def fused_chain_pure(x, *, interpret=False):
    """Traceable fused_chain(x f64[8, 12]) -> y f32[12, 8]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    # in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64
    y = _fused_chain_y(_fused_chain_y_x(x))
    return y.reshape(12, 8)


_fused_chain = jax.jit(fused_chain_pure, static_argnames="interpret")


def fused_chain(x, *, interpret=None):
    """fused_chain(x f64[8, 12]) -> y f32[12, 8]."""
    return _run(_fused_chain, (x,), interpret)


# ---- kernel let_gathered

def _let_gathered_u(t_ref, u_ref):
    # u[r, c] = (t[r, c] + 1)
    v0 = t_ref[...]
    v3 = v0 + jnp.float32(1)
    out = v3
    u_ref[...] = out


_let_gathered_u_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((10, 4), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((10, 4), lambda _: (np.int32(0), np.int32(0))))

def _let_gathered_y(idx_ref, u_ref, y_ref, err_ref):
    # y[s, c] = u[idx[s], c]
    @pl.when(pl.program_id(0) == 0)
    def _init():
        _record_init(err_ref)
    v0 = idx_ref[pl.program_id(0)]
    v1 = u_ref[...][0, :]
    v1 = v1.reshape((1, 4))
    bad = (v0 < 0) | (v0 >= 10)
    _record(err_ref, bad, 0, v0, (pl.program_id(0), 0))
    out = jnp.broadcast_to(v1, (1, 4))
    y_ref[...] = out


_let_gathered_y_grid = pltpu.PrefetchScalarGridSpec(
    num_scalar_prefetch=1,
    grid=(6,),
    in_specs=[
        pl.BlockSpec((None, 1, 4), lambda s, idx_ref: (jnp.clip(idx_ref[s], 0, 9), np.int32(0), np.int32(0)))],
    out_specs=[pl.BlockSpec((None, 1, 4), lambda s, idx_ref: (s, np.int32(0), np.int32(0))), pl.BlockSpec((11,), lambda *_: (np.int32(0),), memory_space=pltpu.SMEM)])


_let_gathered_MESSAGES = (
    "kernel let_gathered: index {2} out of range for dim 0 of 'u' (size 10) at y[{3}, {4}]",
)


def let_gathered_pure(t, idx, *, interpret=False):
    """Traceable let_gathered(t f32[10, 4], idx i64[6]) -> y f32[6, 4]. Returns the outputs, then the bad-index records."""
    t = jnp.asarray(t).reshape(-1)
    idx = jnp.asarray(idx).reshape(-1)
    # u
    u = pl.pallas_call(
        _let_gathered_u,
        out_shape=jax.ShapeDtypeStruct((10, 4), jnp.float32),
        grid_spec=_let_gathered_u_grid,
        interpret=interpret,
    )(t.reshape(10, 4))
    u = u.reshape(-1)
    # y
    y, bad1 = pl.pallas_call(
        _let_gathered_y,
        out_shape=(jax.ShapeDtypeStruct((6, 1, 4), jnp.float32), jax.ShapeDtypeStruct((11,), jnp.int32)),
        grid_spec=_let_gathered_y_grid,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=interpret,
    )(_i32(idx), u.reshape(10, 1, 4))
    y = y.reshape(-1)
    return y.reshape(6, 4), bad1


_let_gathered = jax.jit(let_gathered_pure, static_argnames="interpret")


def let_gathered(t, idx, *, interpret=None):
    """let_gathered(t f32[10, 4], idx i64[6]) -> y f32[6, 4]. Raises IndexError for an out-of-range gather index."""
    *outs, bad = _run(_let_gathered, (t, idx), interpret)
    _raise_bad(bad, _let_gathered_MESSAGES)
    return outs[0]


# ---- kernel fused_weak

def _fused_weak_y_x(x):
    """x[i] over (24,), in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64."""
    a = x
    return a


def _fused_weak_y(x_ref):
    # y[i] = (f64(w[i]) * 3)
    v0 = x_ref[...]
    v1 = v0.astype(jnp.float64)
    v3 = v1 > jnp.float64(0)
    v7 = jnp.where(v3, jnp.float64(1.1000000000000001), jnp.float64(0.10000000000000001))
    v8 = v7.astype(jnp.float32)
    v9 = v8.astype(jnp.float64)
    v11 = v9 * jnp.float64(3)
    return jnp.broadcast_to(v11, (24,)).reshape(-1).astype(jnp.float64)


def fused_weak_pure(x, *, interpret=False):
    """Traceable fused_weak(x f32[24]) -> y f64[24]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    # in XLA: the TPU has no 64-bit vectors; XLA emulates f64 and i64
    y = _fused_weak_y(_fused_weak_y_x(x))
    return y.reshape(24)


_fused_weak = jax.jit(fused_weak_pure, static_argnames="interpret")


def fused_weak(x, *, interpret=None):
    """fused_weak(x f32[24]) -> y f64[24]."""
    return _run(_fused_weak, (x,), interpret)
