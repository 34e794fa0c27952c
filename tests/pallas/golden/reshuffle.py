"""Pallas kernels of examples/reshuffle.ath, emitted by athene (target pallas). Do not edit.

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


# ---- kernel reshuffle_mod4

def _reshuffle_mod4_y_x(x):
    """x.flat[(((i % 4) * 64) + (i // 4))] over (256,), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(4, 64)
    a = jnp.transpose(a, (1, 0))
    a = a.reshape(256,)
    return a


def _reshuffle_mod4_y(x_ref, y_ref):
    # y[i] = x.flat[(((i % 4) * 64) + (i // 4))]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_reshuffle_mod4_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((256,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((256,), lambda _: (np.int32(0),)))


def reshuffle_mod4_pure(x, *, interpret=False):
    """Traceable reshuffle_mod4(x f32[4, 64]) -> y f32[256]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _reshuffle_mod4_y,
        out_shape=jax.ShapeDtypeStruct((256,), jnp.float32),
        grid_spec=_reshuffle_mod4_y_grid,
        interpret=interpret,
    )(_reshuffle_mod4_y_x(x))
    return y.reshape(256)


_reshuffle_mod4 = jax.jit(reshuffle_mod4_pure, static_argnames="interpret")


def reshuffle_mod4(x, *, interpret=None):
    """reshuffle_mod4(x f32[4, 64]) -> y f32[256]."""
    return _run(_reshuffle_mod4, (x,), interpret)


# ---- kernel repeat_interleave3

def _repeat_interleave3_y_x(x):
    """x.flat[(i // 3)] over (30,), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x
    a = a.reshape(10, 1)
    a = jnp.broadcast_to(a, (10, 3))
    a = a.reshape(30,)
    return a


def _repeat_interleave3_y(x_ref, y_ref):
    # y[i] = x.flat[(i // 3)]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_repeat_interleave3_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((30,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((30,), lambda _: (np.int32(0),)))


def repeat_interleave3_pure(x, *, interpret=False):
    """Traceable repeat_interleave3(x f32[10]) -> y f32[30]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _repeat_interleave3_y,
        out_shape=jax.ShapeDtypeStruct((30,), jnp.float32),
        grid_spec=_repeat_interleave3_y_grid,
        interpret=interpret,
    )(_repeat_interleave3_y_x(x))
    return y.reshape(30)


_repeat_interleave3 = jax.jit(repeat_interleave3_pure, static_argnames="interpret")


def repeat_interleave3(x, *, interpret=None):
    """repeat_interleave3(x f32[10]) -> y f32[30]."""
    return _run(_repeat_interleave3, (x,), interpret)


# ---- kernel tile3

def _tile3_y_x(x):
    """x[(i % 5)] over (15,), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x
    a = a.reshape(1, 5)
    a = jnp.broadcast_to(a, (3, 5))
    a = a.reshape(15,)
    return a


def _tile3_y(x_ref, y_ref):
    # y[i] = x[(i % 5)]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_tile3_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((15,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((15,), lambda _: (np.int32(0),)))


def tile3_pure(x, *, interpret=False):
    """Traceable tile3(x f32[5]) -> y f32[15]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _tile3_y,
        out_shape=jax.ShapeDtypeStruct((15,), jnp.float32),
        grid_spec=_tile3_y_grid,
        interpret=interpret,
    )(_tile3_y_x(x))
    return y.reshape(15)


_tile3 = jax.jit(tile3_pure, static_argnames="interpret")


def tile3(x, *, interpret=None):
    """tile3(x f32[5]) -> y f32[15]."""
    return _run(_tile3, (x,), interpret)


# ---- kernel roll5

def _roll5_y_x(x):
    """x[((i - 5) % 16)] over (16,), in XLA: the rolled view reshape (16,) · index [11:16 pad (0, 11)] and reshape (16,) · index [0:11 pad (5, 0)]: the tpu backend reads no rolled pieces, so it is read element by element."""
    i = jax.lax.broadcasted_iota(jnp.int32, (16,), 0)
    return jnp.take(x, jnp.broadcast_to(((i + 11) % 16), (16,)), mode="clip")


def _roll5_y(x_ref, y_ref):
    # y[i] = x[((i - 5) % 16)]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_roll5_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((16,), lambda _: (np.int32(0),)))


def roll5_pure(x, *, interpret=False):
    """Traceable roll5(x f32[16]) -> y f32[16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _roll5_y,
        out_shape=jax.ShapeDtypeStruct((16,), jnp.float32),
        grid_spec=_roll5_y_grid,
        interpret=interpret,
    )(_roll5_y_x(x))
    return y.reshape(16)


_roll5 = jax.jit(roll5_pure, static_argnames="interpret")


def roll5(x, *, interpret=None):
    """roll5(x f32[16]) -> y f32[16]."""
    return _run(_roll5, (x,), interpret)


# ---- kernel roll_sym

def _roll_sym_y_x(x):
    """x[((i + 3) % N)] over (64,), in XLA: the rolled view reshape (64,) · index [3:64 pad (0, 3)] and reshape (64,) · index [0:3 pad (61, 0)]: the tpu backend reads no rolled pieces, so it is read element by element."""
    i = jax.lax.broadcasted_iota(jnp.int32, (64,), 0)
    return jnp.take(x, jnp.broadcast_to(((i + 3) % 64), (64,)), mode="clip")


def _roll_sym_y(x_ref, y_ref):
    # y[i] = x[((i + 3) % N)]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_roll_sym_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((64,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((64,), lambda _: (np.int32(0),)))


def roll_sym_pure(x, *, interpret=False):
    """Traceable roll_sym(x f32[64]) -> y f32[64]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _roll_sym_y,
        out_shape=jax.ShapeDtypeStruct((64,), jnp.float32),
        grid_spec=_roll_sym_y_grid,
        interpret=interpret,
    )(_roll_sym_y_x(x))
    return y.reshape(64)


_roll_sym = jax.jit(roll_sym_pure, static_argnames="interpret")


def roll_sym(x, *, interpret=None):
    """roll_sym(x f32[64]) -> y f32[64]."""
    return _run(_roll_sym, (x,), interpret)


# ---- kernel floordiv_negative

def _floordiv_negative_y_x(x):
    """x[(((i - 8) // 2) + 4)] over (16,), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x
    a = a.reshape(8, 1)
    a = jnp.broadcast_to(a, (8, 2))
    a = a.reshape(16,)
    return a


def _floordiv_negative_y(x_ref, y_ref):
    # y[i] = x[(((i - 8) // 2) + 4)]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_floordiv_negative_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((16,), lambda _: (np.int32(0),)))


def floordiv_negative_pure(x, *, interpret=False):
    """Traceable floordiv_negative(x f32[8]) -> y f32[16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _floordiv_negative_y,
        out_shape=jax.ShapeDtypeStruct((16,), jnp.float32),
        grid_spec=_floordiv_negative_y_grid,
        interpret=interpret,
    )(_floordiv_negative_y_x(x))
    return y.reshape(16)


_floordiv_negative = jax.jit(floordiv_negative_pure, static_argnames="interpret")


def floordiv_negative(x, *, interpret=None):
    """floordiv_negative(x f32[8]) -> y f32[16]."""
    return _run(_floordiv_negative, (x,), interpret)


# ---- kernel floordiv_negative_divisor

def _floordiv_negative_divisor_y_x(x):
    """x[((i // -2) + 8)] over (16,), in XLA: (-i) // 2 is not affine in the digits of the index variables."""
    i = jax.lax.broadcasted_iota(jnp.int32, (16,), 0)
    return jnp.take(x, jnp.broadcast_to((((-i) // 2) + 8), (16,)), mode="clip")


def _floordiv_negative_divisor_y(x_ref, y_ref):
    # y[i] = x[((i // -2) + 8)]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_floordiv_negative_divisor_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((16,), lambda _: (np.int32(0),)))


def floordiv_negative_divisor_pure(x, *, interpret=False):
    """Traceable floordiv_negative_divisor(x f32[9]) -> y f32[16]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _floordiv_negative_divisor_y,
        out_shape=jax.ShapeDtypeStruct((16,), jnp.float32),
        grid_spec=_floordiv_negative_divisor_y_grid,
        interpret=interpret,
    )(_floordiv_negative_divisor_y_x(x))
    return y.reshape(16)


_floordiv_negative_divisor = jax.jit(floordiv_negative_divisor_pure, static_argnames="interpret")


def floordiv_negative_divisor(x, *, interpret=None):
    """floordiv_negative_divisor(x f32[9]) -> y f32[16]."""
    return _run(_floordiv_negative_divisor, (x,), interpret)


# ---- kernel mod_negative_divisor

def _mod_negative_divisor_y_x(x):
    """x[(0 - (i % -4))] over (12,), in XLA: (3*i) % 4 is not affine in the digits of the index variables."""
    i = jax.lax.broadcasted_iota(jnp.int32, (12,), 0)
    return jnp.take(x, jnp.broadcast_to(((3*i) % 4), (12,)), mode="clip")


def _mod_negative_divisor_y(x_ref, y_ref):
    # y[i] = x[(0 - (i % -4))]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_mod_negative_divisor_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((12,), lambda _: (np.int32(0),))],
    out_specs=pl.BlockSpec((12,), lambda _: (np.int32(0),)))


def mod_negative_divisor_pure(x, *, interpret=False):
    """Traceable mod_negative_divisor(x f32[4]) -> y f32[12]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _mod_negative_divisor_y,
        out_shape=jax.ShapeDtypeStruct((12,), jnp.float32),
        grid_spec=_mod_negative_divisor_y_grid,
        interpret=interpret,
    )(_mod_negative_divisor_y_x(x))
    return y.reshape(12)


_mod_negative_divisor = jax.jit(mod_negative_divisor_pure, static_argnames="interpret")


def mod_negative_divisor(x, *, interpret=None):
    """mod_negative_divisor(x f32[4]) -> y f32[12]."""
    return _run(_mod_negative_divisor, (x,), interpret)


# ---- kernel depth_to_space

def _depth_to_space_y_x(x):
    """x[(((h % 2) * 2) + (w % 2)), (h // 2), (w // 2)] over (6, 6), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(2, 2, 3, 3)
    a = jnp.transpose(a, (2, 0, 3, 1))
    a = a.reshape(6, 6)
    return a


def _depth_to_space_y(x_ref, y_ref):
    # y[h, w] = x[(((h % 2) * 2) + (w % 2)), (h // 2), (w // 2)]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_depth_to_space_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((6, 6), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((6, 6), lambda _: (np.int32(0), np.int32(0))))


def depth_to_space_pure(x, *, interpret=False):
    """Traceable depth_to_space(x f32[4, 3, 3]) -> y f32[6, 6]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _depth_to_space_y,
        out_shape=jax.ShapeDtypeStruct((6, 6), jnp.float32),
        grid_spec=_depth_to_space_y_grid,
        interpret=interpret,
    )(_depth_to_space_y_x(x))
    y = y.reshape(-1)
    return y.reshape(6, 6)


_depth_to_space = jax.jit(depth_to_space_pure, static_argnames="interpret")


def depth_to_space(x, *, interpret=None):
    """depth_to_space(x f32[4, 3, 3]) -> y f32[6, 6]."""
    return _run(_depth_to_space, (x,), interpret)


# ---- kernel space_to_depth_flat

def _space_to_depth_flat_y_x(x):
    """x.flat[(((((2 * i) + (c // 2)) * 6) + (2 * j)) + (c % 2))] over (4, 3, 3), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(3, 2, 3, 2)
    a = jnp.transpose(a, (1, 3, 0, 2))
    a = a.reshape(4, 3, 3)
    return a


def _space_to_depth_flat_y(x_ref, y_ref):
    # y[c, i, j] = x.flat[(((((2 * i) + (c // 2)) * 6) + (2 * j)) + (c % 2))]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_space_to_depth_flat_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((4, 3, 3), lambda _: (np.int32(0), np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((4, 3, 3), lambda _: (np.int32(0), np.int32(0), np.int32(0))))


def space_to_depth_flat_pure(x, *, interpret=False):
    """Traceable space_to_depth_flat(x f32[6, 6]) -> y f32[4, 3, 3]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _space_to_depth_flat_y,
        out_shape=jax.ShapeDtypeStruct((4, 3, 3), jnp.float32),
        grid_spec=_space_to_depth_flat_y_grid,
        interpret=interpret,
    )(_space_to_depth_flat_y_x(x))
    y = y.reshape(-1)
    return y.reshape(4, 3, 3)


_space_to_depth_flat = jax.jit(space_to_depth_flat_pure, static_argnames="interpret")


def space_to_depth_flat(x, *, interpret=None):
    """space_to_depth_flat(x f32[6, 6]) -> y f32[4, 3, 3]."""
    return _run(_space_to_depth_flat, (x,), interpret)


# ---- kernel reshuffle_digits

def _reshuffle_digits_y_x(x):
    """x.flat[(((12 * a) + (4 * (j % 3))) + (j // 3))] over (2, 12), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(2, 3, 4)
    a = jnp.transpose(a, (0, 2, 1))
    a = a.reshape(2, 12)
    return a


def _reshuffle_digits_y(x_ref, y_ref):
    # y[a, j] = x.flat[(((12 * a) + (4 * (j % 3))) + (j // 3))]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_reshuffle_digits_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((2, 12), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((2, 12), lambda _: (np.int32(0), np.int32(0))))


def reshuffle_digits_pure(x, *, interpret=False):
    """Traceable reshuffle_digits(x f32[24]) -> y f32[2, 12]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _reshuffle_digits_y,
        out_shape=jax.ShapeDtypeStruct((2, 12), jnp.float32),
        grid_spec=_reshuffle_digits_y_grid,
        interpret=interpret,
    )(_reshuffle_digits_y_x(x))
    y = y.reshape(-1)
    return y.reshape(2, 12)


_reshuffle_digits = jax.jit(reshuffle_digits_pure, static_argnames="interpret")


def reshuffle_digits(x, *, interpret=None):
    """reshuffle_digits(x f32[24]) -> y f32[2, 12]."""
    return _run(_reshuffle_digits, (x,), interpret)


# ---- kernel row_digit_swap

def _row_digit_swap_y_x(x):
    """x[(((i % 8) * 2) + (i // 8)), j] over (16, 4096), in XLA: Mosaic cannot merge the digits of a variable in a block (a shape cast of its minor dims)."""
    a = x.reshape(8, 2, 4096)
    a = jnp.transpose(a, (1, 0, 2))
    a = a.reshape(16, 4096)
    return a


def _row_digit_swap_y(x_ref, y_ref):
    # y[i, j] = x[(((i % 8) * 2) + (i // 8)), j]
    v0 = x_ref[...]
    out = v0
    y_ref[...] = out


_row_digit_swap_y_grid = pl.GridSpec(
    grid=(1,),
    in_specs=[
        pl.BlockSpec((16, 4096), lambda _: (np.int32(0), np.int32(0)))],
    out_specs=pl.BlockSpec((16, 4096), lambda _: (np.int32(0), np.int32(0))))


def row_digit_swap_pure(x, *, interpret=False):
    """Traceable row_digit_swap(x f32[16, 4096]) -> y f32[16, 4096]."""
    x = jnp.asarray(x).reshape(-1)
    # y
    y = pl.pallas_call(
        _row_digit_swap_y,
        out_shape=jax.ShapeDtypeStruct((16, 4096), jnp.float32),
        grid_spec=_row_digit_swap_y_grid,
        interpret=interpret,
    )(_row_digit_swap_y_x(x))
    y = y.reshape(-1)
    return y.reshape(16, 4096)


_row_digit_swap = jax.jit(row_digit_swap_pure, static_argnames="interpret")


def row_digit_swap(x, *, interpret=None):
    """row_digit_swap(x f32[16, 4096]) -> y f32[16, 4096]."""
    return _run(_row_digit_swap, (x,), interpret)
