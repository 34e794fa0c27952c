"""JAX CPU arrays: read in place (checked by buffer pointers)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import athene

mod = athene.compile("""
kernel affine(x: f32[N, M], s: f32[M]) -> (y: f32[N, M]) {
    y[i, j] = x[i, j] * s[j] + 1.0
}
kernel half(x: bf16[N]) -> (y: f32[N]) {
    y[i] = f32(x[i]) * 2.0
}
kernel embed(table: f32[V, D], idx: i32[S]) -> (out: f32[S, D]) {
    out[s, d] = table[wrap(idx[s], V), d]
}
""")


def test_on_cpu():
    assert jax.devices()[0].platform == "cpu"


def test_arrays_are_read_in_place():
    x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
    s = jnp.asarray([1.0, 2.0, 3.0, 4.0], dtype=jnp.float32)
    y = mod.affine(x, s)
    np.testing.assert_allclose(y, np.asarray(x * s + 1))
    ptrs = mod.affine.storage_pointers(x, s)
    assert ptrs[0] == x.unsafe_buffer_pointer() and ptrs[1] == s.unsafe_buffer_pointer()


def test_bf16_and_gather():
    x = jnp.asarray([1.5, -2.0, 0.25], dtype=jnp.bfloat16)
    np.testing.assert_array_equal(mod.half(x), [3.0, -4.0, 0.5])
    assert mod.half.storage_pointers(x)[0] == x.unsafe_buffer_pointer()
    table = jnp.arange(10, dtype=jnp.float32).reshape(5, 2)
    idx = jnp.asarray([4, -1, 0], dtype=jnp.int32)
    np.testing.assert_array_equal(mod.embed(table, idx), np.asarray(table)[[4, 4, 0]])
    with pytest.raises(athene.RunError, match="index 5 out of range"):
        mod.embed(table, jnp.asarray([5], dtype=jnp.int32))


def test_jax_arrays_cannot_be_out_and_dtypes_are_checked():
    x = jnp.ones((2, 2), jnp.float32)
    s = jnp.ones(2, jnp.float32)
    with pytest.raises(ValueError, match="immutable"):
        mod.affine(x, s, out=jnp.zeros((2, 2), jnp.float32))
    with pytest.raises(TypeError, match="parameter 's' is f32 .* int32"):
        mod.affine(x, jnp.ones(2, jnp.int32))
