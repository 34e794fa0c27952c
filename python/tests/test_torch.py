"""PyTorch CPU tensors: read and written in place (checked by data pointers), any strides."""

import numpy as np
import pytest
import torch

import athene

mod = athene.compile("""
kernel affine(x: f32[N, M], s: f32[M]) -> (y: f32[N, M]) {
    y[i, j] = x[i, j] * s[j] + 1.0
}
kernel nchw(x: f32[B, C, H, W], g: bf16[C]) -> (y: f32[B, C, H, W]) {
    y[b, c, h, w] = x[b, c, h, w] * f32(g[c])
}
kernel half(x: bf16[N]) -> (y: bf16[N]) {
    y[i] = x[i] * 2.0
}
""")


def storage_start(t):
    """Address of the lowest element a tensor covers (torch has no negative strides)."""
    return t.data_ptr()


@pytest.mark.parametrize("make", [
    lambda: torch.randn(6, 9),
    lambda: torch.randn(9, 6).t(),
    lambda: torch.randn(6, 18)[:, ::2],
    lambda: torch.randn(8, 9)[1:7],
    lambda: torch.randn(1, 9).expand(6, 9),
])
def test_tensors_are_read_in_place(make):
    x, s = make(), torch.randn(9)
    y = mod.affine(x, s)
    assert isinstance(y, np.ndarray)
    np.testing.assert_allclose(y, (x * s + 1).numpy(), rtol=1e-6)
    ptrs = mod.affine.storage_pointers(x, s)
    assert ptrs[0] == storage_start(x) and ptrs[1] == s.data_ptr()


def test_channels_last_and_bf16():
    x = torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last)
    g = torch.tensor([1.5, -2.0, 0.25], dtype=torch.bfloat16)
    assert not x.is_contiguous()
    y = mod.nchw(x, g)
    np.testing.assert_allclose(y, (x * g.float()[None, :, None, None]).numpy(), rtol=1e-6)
    ptrs = mod.nchw.storage_pointers(x, g)
    assert ptrs == [x.data_ptr(), g.data_ptr(), 0]


def test_out_tensor_written_in_place():
    x, s = torch.randn(4, 5), torch.randn(5)
    out = torch.empty(5, 4).t()
    r = mod.affine(x, s, out=out)
    torch.testing.assert_close(out, x * s + 1)
    assert r.__array_interface__["data"][0] == out.data_ptr()
    assert mod.affine.storage_pointers(x, s, out=out)[2] == out.data_ptr()


def test_bf16_out_and_result():
    x = torch.tensor([1.0, -3.0, 0.5], dtype=torch.bfloat16)
    out = torch.zeros(3, dtype=torch.bfloat16)
    mod.half(x, out=out)
    torch.testing.assert_close(out, x * 2)
    y = mod.half(x)
    assert y.dtype == athene.BFLOAT16
    np.testing.assert_array_equal(np.asarray(y).astype(np.float32), (x * 2).float().numpy())


def test_requires_grad_and_dtype_errors():
    x = torch.randn(2, 3, requires_grad=True)
    s = torch.ones(3)
    np.testing.assert_allclose(mod.affine(x, s), (x.detach() + 1).numpy())
    with pytest.raises(TypeError, match="parameter 's' is f32 .* float64"):
        mod.affine(x, torch.ones(3, dtype=torch.float64))
    with pytest.raises(TypeError, match="'g' is bf16"):
        mod.nchw(torch.randn(1, 1, 1, 1), torch.ones(1, dtype=torch.float16))
