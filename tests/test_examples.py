"""Every kernel under examples/ run through `athene run --reference` and checked against NumPy.

Each kernel has one entry in CASES: a function that builds the *logical* values of its inputs
(seeded RNG) and computes the expected outputs with NumPy. `test_every_example_is_covered`
fails when an example kernel has no entry (or an entry names a kernel that no longer exists).

The binary is $ATHENE or <repo>/build/athene.

Full-size permutations. permute.ath and layouts.ath hold the CASES.md shapes at their real size
(2-10M elements each; the analysis needs the real shapes), and each has a scaled-down twin with the
same index structure (the `*_s` kernels). Through the reference interpreter all the full-size ones
together take about a minute, so by default only FULL_SIZE_SAMPLE of them run (one per family);
ATHENE_FULL_EXAMPLES=1 or ATHENE_TEST_ALL=1 (`make test-all`, which CI runs) runs every one.
"""

import itertools
import os
import re
import subprocess
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
ATHENE = os.environ.get("ATHENE", str(REPO / "build" / "athene"))
TIMEOUT = 120

f16, f32, f64 = np.float16, np.float32, np.float64
i8, i16, i32, i64, u8 = np.int8, np.int16, np.int32, np.int64, np.uint8


# ----------------------------------------------------------------------------- bf16 in .npy


class BF16:
    """A bf16 array: holds float32 values that bf16 represents exactly. In .npy it is stored
    as descr '<V2' holding the upper 16 bits of the float32."""

    def __init__(self, values):
        self.values = bf16_round(values)

    @property
    def shape(self):
        return self.values.shape


def bf16_bits(a):
    """float32 -> bf16 bit patterns (uint16), round to nearest even."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def bf16_from_bits(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def bf16_round(a):
    return bf16_from_bits(bf16_bits(a))


def save_npy(path, arr):
    if isinstance(arr, BF16):
        from numpy.lib import format as npf

        bits = bf16_bits(arr.values)
        with open(path, "wb") as fp:
            npf.write_array_header_1_0(
                fp, {"descr": "<V2", "fortran_order": False, "shape": bits.shape})
            fp.write(bits.tobytes())
    else:
        np.save(path, np.array(arr, order="C"))  # C order, 0-d stays 0-d


def load_npy(path):
    a = np.load(path)
    if a.dtype.kind == "V" and a.dtype.itemsize == 2:
        return BF16(bf16_from_bits(a.view(np.uint16)))
    return a


# ----------------------------------------------------------------------------- running athene


def athene(*args, timeout=TIMEOUT):
    return subprocess.run([ATHENE, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def run_kernel(tmp_path, file, kernel, inputs, outputs, sizes=None, extra=()):
    """Runs one kernel with every input given. Returns (CompletedProcess, {out: array})."""
    cmd = ["run", EXAMPLES / file if not Path(file).is_absolute() else file, "--kernel", kernel]
    for sym, val in (sizes or {}).items():
        cmd += ["--size", f"{sym}={val}"]
    for name, arr in inputs.items():
        p = tmp_path / f"in_{name}.npy"
        save_npy(p, arr)
        cmd += ["--in", f"{name}={p}"]
    paths = {}
    for name in outputs:
        paths[name] = tmp_path / f"out_{name}.npy"
        cmd += ["--out", f"{name}={paths[name]}"]
    cmd += [*extra, "--reference"]
    r = athene(*cmd)
    got = {}
    if r.returncode == 0:
        for name, p in paths.items():
            assert p.exists(), f"athene exited 0 but wrote no {p.name}\n{r.stdout}{r.stderr}"
            got[name] = load_npy(p)
    return r, got


DEFAULT_TOL = {  # (rtol, atol)
    np.dtype(f16): (1e-3, 1e-3),
    np.dtype(f32): (1e-6, 1e-6),
    np.dtype(f64): (1e-12, 1e-12),
}


def compare(name, got, exp, tol=None):
    if isinstance(exp, BF16):
        assert isinstance(got, BF16), f"{name}: expected a bf16 (<V2) array, got {got.dtype}"
        assert got.shape == exp.shape, f"{name}: shape {got.shape} != {exp.shape}"
        if tol == 0:
            np.testing.assert_array_equal(got.values, exp.values, err_msg=name)
        else:
            rtol, atol = tol if tol is not None else (1e-2, 1e-2)
            np.testing.assert_allclose(got.values, exp.values, rtol=rtol, atol=atol, err_msg=name)
        return
    exp = np.asarray(exp)
    assert not isinstance(got, BF16), f"{name}: got bf16, expected {exp.dtype}"
    assert got.dtype == exp.dtype, f"{name}: dtype {got.dtype} != {exp.dtype}"
    assert got.shape == exp.shape, f"{name}: shape {got.shape} != {exp.shape}"
    if exp.dtype.kind in "biu" or tol == 0:
        np.testing.assert_array_equal(got, exp, err_msg=name)
    else:
        rtol, atol = tol if tol is not None else DEFAULT_TOL[exp.dtype]
        np.testing.assert_allclose(got, exp, rtol=rtol, atol=atol, err_msg=name)


# ----------------------------------------------------------------------------- the table


@dataclass
class Case:
    file: str
    kernel: str
    build: object  # rng -> (inputs dict, expected dict)
    sizes: dict = field(default_factory=dict)  # passed with --size; the rest are inferred
    tol: object = None


CASES = {}


def case(file, kernel=None, sizes=None, tol=None):
    def deco(fn):
        name = kernel or fn.__name__
        assert name not in CASES, name
        CASES[name] = Case(file, name, fn, sizes or {}, tol)
        return fn
    return deco


def add(file, kernel, build, sizes=None, tol=None):
    assert kernel not in CASES, kernel
    CASES[kernel] = Case(file, kernel, build, sizes or {}, tol)


def randn(rng, *shape, dtype=f32):
    return rng.standard_normal(shape).astype(dtype)


def arange(n, dtype=f32):
    return np.arange(n).astype(dtype)


# ---- strided.ath

S = "strided.ath"


@case(S)
def slice_step2(rng):
    x = arange(16)
    return {"x": x}, {"y": x[::2] * f32(2.0)}


@case(S)
def slice_1_step2(rng):
    x = arange(16)
    return {"x": x}, {"y": x[1::2] + f32(1.0)}


@case(S)
def slice_5_step2(rng):
    x = arange(10)
    return {"x": x}, {"y": x[5::2] + f32(1.0)}


@case(S)
def slice_cols_5_step2(rng):
    x = randn(rng, 4, 8)
    return {"x": x}, {"y": x[:, 5::2] * f32(2.0)}


@case(S)
def slice_2d_step2_step3(rng):
    x = randn(rng, 8, 12)
    return {"x": x}, {"y": x[::2, ::3] + f32(1.0)}


@case(S)
def slice_chain(rng):
    x = randn(rng, 4, 480)
    y = x[:, 1::2][:, 2::3][:, 3::4] + 1
    assert np.array_equal(y, x[:, 23::24] + 1)
    return {"x": x}, {"y": y}


@case(S)
def rope_interleaved(rng):
    x, cos, sin = randn(rng, 32, 64), randn(rng, 32, 32), randn(rng, 32, 32)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    y = np.stack([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).reshape(32, 64)
    return {"x": x, "cos": cos, "sin": sin}, {"y": y}


@case(S)
def rope_halves(rng):
    x, cos, sin = randn(rng, 32, 64), randn(rng, 32, 32), randn(rng, 32, 32)
    x1, x2 = x[..., :32], x[..., 32:]
    y = np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)
    return {"x": x, "cos": cos, "sin": sin}, {"y": y}


@case(S)
def slice_step3(rng):
    x = arange(16)
    return {"x": x}, {"y": x[::3] * f32(2.0)}


@case(S)
def slice_1_step3_of17(rng):
    x = randn(rng, 17)
    return {"x": x}, {"y": x[1::3]}


@case(S)
def slice_2_14_5(rng):
    x = randn(rng, 16)
    return {"x": x}, {"y": x[2:14:5]}


@case(S)
def flip_1d(rng):
    x = randn(rng, 16)
    return {"x": x}, {"y": x[::-1]}


@case(S)
def flip_cols_step2(rng):
    x = randn(rng, 4, 8)
    return {"x": x}, {"y": x[:, ::-2]}


@case(S)
def flip_of_transpose(rng):
    x = randn(rng, 6, 8)
    return {"x": x}, {"y": x.T[::-1]}


@case(S, sizes={"N": 9, "K": 5, "S": 4})  # M inferred from the --in shape
def slice_sym(rng):
    x = randn(rng, 9, 10)
    return {"x": x}, {"y": x[::2, ::-3] * f32(0.5)}


# ---- layouts.ath: the logical value of each view is what --in takes

L = "layouts.ath"


def affine(x):
    return x * x.dtype.type(2.0) + x.dtype.type(1.0)


def add_view(kernel, make):
    def build(rng):
        x = make(rng)
        return {"x": x}, {"y": affine(x)}
    add(L, kernel, build)


add_view("view_step2", lambda rng: arange(256)[::2])
add_view("view_step4", lambda rng: arange(256)[::4])
add_view("view_step2_step2", lambda rng: arange(256)[::2][::2])
add_view("view_rows_step2", lambda rng: randn(rng, 32, 32)[::2, :])
add_view("view_cols_step2", lambda rng: randn(rng, 32, 32)[:, ::2])
add_view("view_both_step2", lambda rng: randn(rng, 32, 32)[::2, ::2])
for _r, _c in [(32, 32), (2048, 2048), (64, 32), (5, 8), (3215, 23), (8, 128), (128, 8)]:
    add_view(f"view_T_{_r}x{_c}", lambda rng, r=_r, c=_c: randn(rng, r, c).T)
add_view("view_T_sym", lambda rng: randn(rng, 6, 9).T)  # N = 6, M = 9 from the shape
add_view("view_3d_step2", lambda rng: randn(rng, 8, 8, 8)[::2, ::2, ::2])
add_view("view_3d_permuted", lambda rng: randn(rng, 8, 8, 8).transpose(2, 0, 1))
add_view("view_channels_last", lambda rng: randn(rng, 2, 3, 4, 5))
add_view("view_diagonal", lambda rng: np.diagonal(randn(rng, 32, 32)))
add_view("view_as_strided",
         lambda rng: randn(rng, 256)[16 * np.arange(4)[:, None] + 2 * np.arange(8)])
add_view("view_row3_step2", lambda rng: randn(rng, 32, 32)[3, ::2])
add_view("view_unsqueezed", lambda rng: randn(rng, 32, 32)[::2, ::2][None])
add_view("view_step2_f64", lambda rng: randn(rng, 32, dtype=f64)[::2])
add_view("view_expand_3d", lambda rng: np.broadcast_to(randn(rng, 1, 1, 16), (4, 8, 16)))
add_view("view_flip_1d", lambda rng: randn(rng, 16)[::-1])
add_view("view_flip_cols_step2", lambda rng: randn(rng, 4, 8)[:, ::-2])
add_view("view_flip_of_transpose", lambda rng: randn(rng, 6, 8).T[::-1])
add_view("view_size1_odd_stride", lambda rng: randn(rng, 1, 8))


@case(L)
def view_step2_then_slice(rng):
    x = arange(256)[::2]
    return {"x": x}, {"y": affine(x[::2])}


@case(L)
def view_step2_i32(rng):
    x = np.arange(32, dtype=i32)[::2]
    return {"x": x}, {"y": (x * 2.0 + 1.0).astype(f32)}


@case(L)
def view_expand_2d(rng):
    a = np.broadcast_to(randn(rng, 1, 16), (8, 16))
    b = randn(rng, 8, 16)
    return {"a": a, "b": b}, {"y": a + b}


@case(L)
def view_expand_3d_twice(rng):
    a = np.broadcast_to(randn(rng, 1, 1, 16), (4, 8, 16))
    b = np.broadcast_to(randn(rng, 1, 1, 16), (4, 8, 16))
    return {"a": a, "b": b}, {"y": a * f32(2.0) + b + f32(1.0)}


@case(L)
def view_multi_strided(rng):
    a, b = randn(rng, 32, 32)[::2, ::2], randn(rng, 32, 32)[::2, ::2]
    c = randn(rng, 16, 16)
    return {"a": a, "b": b, "c": c}, {"y": a * b + c}


@case(L)
def view_strided_bcast_scalar(rng):
    x = randn(rng, 32, 32)[::2, ::2]
    y = randn(rng, 16)
    s = np.array(1.75, dtype=f32)
    return {"x": x, "y": y, "s": s}, {"out": x + y * s}


@case(L)
def view_flip_both_unflip(rng):
    base = randn(rng, 8, 8)
    return {"x": base[::-1, ::-1]}, {"y": base}


@case(L)
def view_flat_with_offset(rng):
    x = randn(rng, 32, 32)[3, ::2]
    return {"x": x}, {"y": x[::-1]}


@case(L)
def view_flat_rows(rng):
    x = randn(rng, 4, 8)[:, :4]
    return {"x": x}, {"y": x.T}


@case(L)
def colmajor_out(rng):
    x = randn(rng, 8, 16)
    return {"x": x}, {"y": affine(x)}


@case(L)
def scatter_out(rng):
    x = randn(rng, 2, 2)
    return {"x": x}, {"y": x * np.float32(2.0)}


# ---- permute.ath

P = "permute.ath"


def add_perm(kernel, shape, p, out_shape=None, dtype=f32):
    def build(rng):
        x = randn(rng, *shape, dtype=dtype)
        y = np.ascontiguousarray(np.transpose(x, p))
        if out_shape is not None:
            y = y.reshape(out_shape)
        return {"x": x}, {"y": y}
    add(P, kernel, build)


def _sh(shape):
    return "x".join(map(str, shape))


def _ps(p):
    return "".join(map(str, p))


NONID3 = [p for p in itertools.permutations(range(3)) if p != (0, 1, 2)]
NONID4 = [p for p in itertools.permutations(range(4)) if p != (0, 1, 2, 3)]
P_1152 = [(0, 3, 2, 1), (1, 3, 0, 2), (1, 3, 2, 0), (2, 3, 1, 0), (3, 0, 2, 1), (3, 1, 0, 2),
          (3, 1, 2, 0), (3, 2, 0, 1), (3, 2, 1, 0)]

for _s in [(2, 32), (10000, 2), (2, 10000), (8, 128), (128, 8), (3, 256)]:
    add_perm(f"perm2_{_sh(_s)}", _s, (1, 0))
add_perm("perm3_2x32x32_102", (2, 32, 32), (1, 0, 2))
for _p in NONID3:
    add_perm(f"perm3_2x8x16_{_ps(_p)}", (2, 8, 16), _p)
for _s in [(2, 8, 2048), (2, 1152, 1024)]:
    for _p in [(1, 0, 2), (0, 2, 1), (2, 1, 0)]:
        add_perm(f"perm3_{_sh(_s)}_{_ps(_p)}", _s, _p)
for _p in NONID3:
    add_perm(f"perm3_2x1152x2048_{_ps(_p)}", (2, 1152, 2048), _p)
for _p in [(1, 0, 2), (0, 2, 1), (2, 1, 0)]:
    add_perm(f"perm3_2x24x16_{_ps(_p)}_s", (2, 24, 16), _p)
for _p in NONID3:
    add_perm(f"perm3_2x24x32_{_ps(_p)}_s", (2, 24, 32), _p)
for _p in NONID4:
    add_perm(f"perm4_2x4x128x2048_{_ps(_p)}", (2, 4, 128, 2048), _p)
    add_perm(f"perm4_2x4x8x16_{_ps(_p)}_s", (2, 4, 8, 16), _p)
for _p in P_1152:
    add_perm(f"perm4_1152x1152x2x4_{_ps(_p)}", (1152, 1152, 2, 4), _p)
    add_perm(f"perm4_12x12x2x4_{_ps(_p)}_s", (12, 12, 2, 4), _p)

# flat / collapsed forms
add_perm("perm2_10000x2_flat", (10000, 2), (1, 0))
add_perm("perm2_8x128_flat", (8, 128), (1, 0))
add_perm("perm3_2x1152x2048_201_flat", (2, 1152, 2048), (2, 0, 1))
add_perm("perm3_2x1152x2048_201_collapsed", (2, 1152, 2048), (2, 0, 1), (2048, 2304))
add_perm("perm3_2x1152x2048_120_collapsed", (2, 1152, 2048), (1, 2, 0), (2359296, 2))
add_perm("perm3_2x1152x2048_120_divmod", (2, 1152, 2048), (1, 2, 0), (4718592,))
add_perm("perm3_2x24x32_201_flat_s", (2, 24, 32), (2, 0, 1))
add_perm("perm3_2x24x32_201_collapsed_s", (2, 24, 32), (2, 0, 1), (32, 48))
add_perm("perm3_2x24x32_120_collapsed_s", (2, 24, 32), (1, 2, 0), (768, 2))
add_perm("perm3_2x24x32_120_divmod_s", (2, 24, 32), (1, 2, 0), (1536,))
add_perm("perm4_2x4x128x2048_2301_collapsed", (2, 4, 128, 2048), (2, 3, 0, 1), (262144, 8))
add_perm("perm4_2x4x128x2048_0312_collapsed", (2, 4, 128, 2048), (0, 3, 1, 2), (2, 2048, 512))
add_perm("perm4_2x4x128x2048_1023_collapsed", (2, 4, 128, 2048), (1, 0, 2, 3), (4, 2, 262144))
add_perm("perm4_2x4x8x16_2301_collapsed_s", (2, 4, 8, 16), (2, 3, 0, 1), (128, 8))
add_perm("perm4_2x4x8x16_0312_collapsed_s", (2, 4, 8, 16), (0, 3, 1, 2), (2, 16, 32))
add_perm("perm4_2x4x8x16_1023_collapsed_s", (2, 4, 8, 16), (1, 0, 2, 3), (4, 2, 128))
add_perm("perm4_1152x1152x2x4_3201_collapsed", (1152, 1152, 2, 4), (3, 2, 0, 1),
         (4, 2, 1327104))
add_perm("perm4_12x12x2x4_3201_collapsed_s", (12, 12, 2, 4), (3, 2, 0, 1), (4, 2, 144))
# size-1, zero-size, symbolic
add_perm("perm3_1x8x1_120", (1, 8, 1), (1, 2, 0))
add_perm("perm2_0x8", (0, 8), (1, 0))
add_perm("perm3_3x0x5_201", (3, 0, 5), (2, 0, 1))
add_perm("perm3_sym_201", (3, 5, 7), (2, 0, 1))  # B, S, K from the --in shape


# ---- fusion.ath

FU = "fusion.ath"


@case(FU)
def fused_transpose_scale(rng):
    x, s = randn(rng, 64, 48), randn(rng, 64)
    return {"x": x, "s": s}, {"y": (x * f32(2.0) + s[:, None]).T}


@case(FU, tol=(1e-5, 1e-6))
def softmax_rows(rng):
    x = randn(rng, 32, 40)
    e = np.exp(x)
    return {"x": x}, {"y": e / e.sum(-1, keepdims=True, dtype=f64).astype(f32)}


@case(FU)
def fused_view_twice(rng):
    x = randn(rng, 16, 16)
    return {"x": x}, {"y": x.T * x}


@case(FU)
def fused_chain(rng):
    x = randn(rng, 8, 12, dtype=f64)
    return {"x": x}, {"y": ((x + np.arange(12, dtype=f64)) * 0.5).astype(f32).T}


@case(FU)
def fused_weak(rng):
    x = randn(rng, 24)
    return {"x": x}, {"y": np.where(x > 0, f32(1.1), f32(0.1)).astype(f64) * 3.0}


@case(FU)
def let_gathered(rng):
    t, ind = randn(rng, 10, 4), rng.integers(0, 10, size=6).astype(i64)
    return {"t": t, "idx": ind}, {"y": (t + f32(1.0))[ind]}


# ---- gather.ath and bad_index.ath

G = "gather.ath"


def idx(rng, lo, hi, n, dtype=i64):
    return rng.integers(lo, hi, size=n).astype(dtype)


@case(G)
def gather_1d(rng):
    x = arange(16)
    ind = np.array([0, 2, 5, 7, 11, 13, 14, 15], dtype=i64)
    return {"x": x, "indices": ind}, {"y": x[ind]}


@case(G)
def gather_rows(rng):
    x = randn(rng, 16, 8)
    rows = np.array([0, 2, 5, 7], dtype=i64)
    return {"x": x, "rows": rows}, {"y": x[rows, :]}


def add_embed(kernel, v, d, n, indices=None):
    def build(rng):
        table = randn(rng, v, d)
        ind = idx(rng, 0, v, n) if indices is None else np.array(indices, dtype=i64)
        return {"table": table, "indices": ind}, {"y": table[ind]}
    add(G, kernel, build)


add_embed("embed_256x64_32", 256, 64, 32)
add_embed("embed_256x64_64", 256, 64, 64)
add_embed("embed_256x100_32", 256, 100, 32)
add_embed("embed_2048x128_64", 2048, 128, 64)
add_embed("embed_256x64_1", 256, 64, 1)
add_embed("embed_dup", 256, 64, 8, [0, 1, 0, 1, 2, 2, 3, 3])


@case(G)
def embed_bias(rng):
    table, ind, bias = randn(rng, 256, 64), idx(rng, 0, 256, 32), randn(rng, 32, 64)
    return {"table": table, "indices": ind, "bias": bias}, {"y": table[ind] + bias}


@case(G)
def embed_scale(rng):
    table, ind, scale = randn(rng, 256, 64), idx(rng, 0, 256, 32), randn(rng, 64)
    return {"table": table, "indices": ind, "scale": scale}, {"y": table[ind] * scale}


@case(G)
def embed_bias_scale(rng):
    table, ind = randn(rng, 256, 64), idx(rng, 0, 256, 32)
    bias, scale = randn(rng, 32, 64), randn(rng, 64)
    return ({"table": table, "indices": ind, "bias": bias, "scale": scale},
            {"y": (table[ind] + bias) * scale})


@case(G)  # V, D, S all inferred from the --in shapes
def embedding(rng):
    weight, ind = randn(rng, 50, 16), idx(rng, 0, 50, 12)
    return {"weight": weight, "indices": ind}, {"y": weight[ind]}


@case(G)
def gather_wrap(rng):
    table = randn(rng, 16, 8)
    ind = np.concatenate([[-16, -1, 0, 15], idx(rng, -16, 16, 8)]).astype(i64)
    return {"table": table, "idx": ind}, {"y": table[ind]}  # NumPy wraps negatives too


@case(G, sizes={"V": 10})  # D, S inferred
def gather_wrap_sym(rng):
    table, scale = randn(rng, 10, 6), randn(rng, 6)
    ind = np.array([-10, 9, -1, 0, 3, -4, 5], dtype=i64)
    return {"table": table, "idx": ind, "scale": scale}, {"out": table[ind] * scale}


@case(G)
def gather_two(rng):
    a, b = randn(rng, 32), randn(rng, 20)
    i0, i1 = idx(rng, 0, 32, 10), idx(rng, 0, 20, 10, i32)
    return {"a": a, "b": b, "i0": i0, "i1": i1}, {"y": a[i0] + b[i1]}


@case(G)
def gather_2d(rng):
    t = randn(rng, 8, 6, 4)
    r, c = idx(rng, 0, 8, 5), idx(rng, 0, 6, 5)
    return {"t": t, "r": r, "c": c}, {"y": t[r, c, :]}


@case(G)
def gather_idx2d(rng):
    table, ind = randn(rng, 20, 8), idx(rng, 0, 20, (3, 5))
    return {"table": table, "idx": ind}, {"y": table[ind, :]}


@case(G)
def gather_transposed_view(rng):
    table = randn(rng, 8, 16).T
    ind = idx(rng, 0, 16, 6)
    return {"table": table, "idx": ind}, {"y": table[ind]}


@case(G)
def gather_transposed_subscript(rng):
    t = randn(rng, 8, 16)
    ind = idx(rng, 0, 16, 6)
    return {"t": t, "idx": ind}, {"y": t.T[ind]}


@case(G)
def gather_middle(rng):
    x, ind = randn(rng, 4, 10, 6), idx(rng, 0, 10, 3)
    return {"x": x, "idx": ind}, {"y": x[:, ind, :]}


@case(G)
def gather_torch_dim1(rng):
    x, ind = randn(rng, 4, 10, 6), idx(rng, 0, 10, (4, 3, 6))
    return {"x": x, "idx": ind}, {"y": np.take_along_axis(x, ind, 1)}


@case(G)
def gather_strided_index(rng):
    table, ind = randn(rng, 16, 4), idx(rng, 0, 16, 32)[::2]
    return {"table": table, "idx": ind}, {"y": table[ind]}


@case(G)
def gather_empty(rng):
    table, ind = randn(rng, 16, 4), np.zeros(0, dtype=i64)
    return {"table": table, "idx": ind}, {"y": table[ind]}


@case(G)
def gather_clamped(rng):
    table = randn(rng, 16, 4)
    ind = np.array([-5, -1, 0, 7, 15, 16, 25, 3], dtype=i64)
    return {"table": table, "idx": ind}, {"y": table[np.clip(ind, 0, 15)]}


@case(G)
def gather_flipped_table(rng):
    t, ind = randn(rng, 16, 4), idx(rng, 0, 16, 6)  # t: the logical (flipped) table
    return {"t": t, "idx": ind}, {"y": t[ind]}


@case(G)
def gather_flat_next_row(rng):
    t, ind = randn(rng, 64), idx(rng, 0, 15, 6)
    return {"t": t, "idx": ind}, {"y": t.reshape(16, 4)[ind + 1]}


@case("bad_index.ath")  # with good indices it is an ordinary gather
def gather(rng):
    table, ind = randn(rng, 16, 4), idx(rng, 0, 16, 5)
    return {"table": table, "idx": ind}, {"out": table[ind]}


# ---- reshuffle.ath

R = "reshuffle.ath"


@case(R)
def reshuffle_mod4(rng):
    x = randn(rng, 4, 64)
    return {"x": x}, {"y": x.T.reshape(-1)}


@case(R)
def row_digit_swap(rng):
    x = randn(rng, 16, 4096)
    return {"x": x}, {"y": x[[(i % 8) * 2 + i // 8 for i in range(16)]]}


@case(R)
def repeat_interleave3(rng):
    x = randn(rng, 10)
    return {"x": x}, {"y": np.repeat(x, 3)}


@case(R)
def tile3(rng):
    x = randn(rng, 5)
    return {"x": x}, {"y": np.tile(x, 3)}


@case(R)
def roll5(rng):
    x = randn(rng, 16)
    return {"x": x}, {"y": np.roll(x, 5)}


@case(R)
def roll_sym(rng):
    x = randn(rng, 11)
    return {"x": x}, {"y": np.roll(x, -3)}


@case(R)
def floordiv_negative(rng):
    x = randn(rng, 8)
    return {"x": x}, {"y": x[(np.arange(16) - 8) // 2 + 4]}


@case(R)
def floordiv_negative_divisor(rng):
    x = randn(rng, 9)
    return {"x": x}, {"y": x[np.arange(16) // -2 + 8]}


@case(R)
def mod_negative_divisor(rng):
    x = randn(rng, 4)
    return {"x": x}, {"y": x[-(np.arange(12) % -4)]}


@case(R)
def depth_to_space(rng):
    x = randn(rng, 4, 3, 3)
    h, w = np.arange(6)[:, None], np.arange(6)[None, :]
    return {"x": x}, {"y": x[(h % 2) * 2 + w % 2, h // 2, w // 2]}


@case(R)
def space_to_depth_flat(rng):
    x = randn(rng, 6, 6)
    c, i, j = np.ix_(np.arange(4), np.arange(3), np.arange(3))
    return {"x": x}, {"y": x[2 * i + c // 2, 2 * j + c % 2]}


@case(R)
def reshuffle_digits(rng):
    x = randn(rng, 24)
    return {"x": x}, {"y": x.reshape(2, 3, 4).transpose(0, 2, 1).reshape(2, 12)}


# ---- beyond.ath

B = "beyond.ath"
swv = np.lib.stride_tricks.sliding_window_view


@case(B)
def unfold_1d(rng):
    x = randn(rng, 17)
    return {"x": x}, {"y": swv(x, 5)[::2]}


@case(B)
def im2col_3x3(rng):
    x = randn(rng, 6, 6)
    p, q = np.arange(16)[:, None], np.arange(9)[None, :]
    y = x[p // 4 + q // 3, p % 4 + q % 3]
    assert np.array_equal(y, swv(x, (3, 3)).reshape(16, 9))
    return {"x": x}, {"y": y}


@case(B)
def unfold_2d(rng):
    x = randn(rng, 6, 6)
    return {"x": x}, {"y": swv(x, (3, 3))}


@case(B, sizes={"S": 5})  # N = 13 from the --in shape
def unfold_sym(rng):
    x = randn(rng, 13)
    return {"x": x}, {"y": swv(x, 4)[::2][:5]}


@case(B)
def iota_two_outputs(rng):
    x = randn(rng, 8, 8)
    return {"x": x}, {"y": np.arange(64).reshape(8, 8).astype(f32) * x,
                      "z": x + np.arange(10, 18).astype(f32)}


@case(B, sizes={"N": 10})
def arange_sym(rng):
    return {}, {"y": arange(10)}


@case(B)
def iota_i64(rng):
    return {}, {"y": np.arange(20, dtype=i64).reshape(4, 5) - 7}


@case(B)
def size1_bcast(rng):
    x, b = randn(rng, 1, 8, 1), randn(rng, 1)
    return {"x": x, "b": b}, {"y": x * f32(2.0) + b[0]}


@case(B)
def size1_gather(rng):
    table, ind = randn(rng, 1, 4), np.array([0, -1, 0], dtype=i64)
    return {"table": table, "idx": ind}, {"y": table[ind]}


@case(B)
def zero_rows_sym(rng):
    x = np.zeros((0, 3), dtype=f32)
    return {"x": x}, {"y": affine(x)}


@case(B)
def zero_view(rng):
    x = np.zeros((0, 4), dtype=f32).T
    return {"x": x}, {"y": x.T.copy()}


@case(B)
def scalar_0d(rng):
    s, x = np.array(1.25, dtype=f32), randn(rng, 4)
    return {"s": s, "x": x}, {"y": x * s, "t": s + f32(1.0)}


# ---- reduce.ath

D = "reduce.ath"
SUM_TOL = (1e-5, 1e-5)


@case(D, tol=SUM_TOL)
def sum_permuted(rng):
    x = randn(rng, 16, 8)
    return {"x": x}, {"y": x.transpose(1, 0).sum(-1)}


@case(D)
def max_strided_cols(rng):
    x = randn(rng, 8, 16)
    return {"x": x}, {"y": x[:, ::2].max(0)}


@case(D, tol=SUM_TOL)
def sum_transposed_view(rng):
    x = randn(rng, 16, 8).T
    return {"x": x}, {"y": x.sum(-1)}


@case(D)
def min_flipped_view(rng):
    x = randn(rng, 4, 8)[:, ::-1]
    return {"x": x}, {"y": x.min(-1)}


@case(D)
def argmax_strided(rng):
    x = randn(rng, 8, 16)
    return {"x": x}, {"y": x[:, 1::2].argmax(0).astype(i64)}


@case(D)
def argmin_permuted(rng):
    x = randn(rng, 6, 10)
    return {"x": x}, {"y": x.T.argmin(-1).astype(i64)}


@case(D, tol=SUM_TOL)
def mean_permuted_3d(rng):
    x = randn(rng, 4, 6, 8)
    return {"x": x}, {"y": x.transpose(1, 0, 2).reshape(6, 32).mean(-1)}


@case(D, tol=SUM_TOL)
def sum_two_vars(rng):
    x = randn(rng, 3, 4, 5)
    return {"x": x}, {"y": x.sum((0, 2))}


@case(D, tol=SUM_TOL)
def sum_bounded_strided(rng):
    x = randn(rng, 8, 10)
    return {"x": x}, {"y": x[:, 1:9:2].sum(-1)}


@case(D, tol=(1e-5, 1e-4))
def sum_iota_weighted(rng):
    x = randn(rng, 5, 12)
    return {"x": x}, {"y": x @ arange(12)}


@case(D)
def prod_strided_f64(rng):
    x = randn(rng, 4, 6, dtype=f64)
    return {"x": x}, {"y": x[:, ::2].prod(-1)}


@case(D)
def any_all_strided(rng):
    base = rng.random((6, 16)) < 0.3
    base[0, ::2] = True   # a row that is all true
    base[1, ::2] = False  # a row that is all false
    m = base[:, ::2]
    return {"m": m}, {"y": m.any(-1), "z": m.all(-1)}


@case(D)
def min_i16_permuted(rng):
    x = idx(rng, -1000, 1000, (5, 7), i16)
    return {"x": x}, {"y": x.min(0)}


@case(D)
def count_true(rng):
    m = rng.random((4, 8)) < 0.5
    return {"m": m}, {"y": m.sum(-1).astype(i64)}


@case(D)
def sum_empty(rng):
    x = np.zeros((4, 0), dtype=f32)
    return {"x": x}, {"y": x.sum(-1)}


@case(D, tol=SUM_TOL)
def embedding_bag_sum(rng):
    table, ind = randn(rng, 20, 8), idx(rng, 0, 20, (3, 5))
    return {"table": table, "idx": ind}, {"y": table[ind].sum(1)}


@case(D, tol=SUM_TOL)
def softmax_strided(rng):
    x = randn(rng, 4, 16)
    xs = x[:, ::2]
    e = np.exp(xs - xs.max(-1, keepdims=True))
    return {"x": x}, {"y": e / e.sum(-1, keepdims=True)}


@case(D)
def max_sym(rng):
    x = randn(rng, 5, 7)
    return {"x": x}, {"y": x.max(-1)}


# ---- dtypes.ath

T = "dtypes.ath"


@case(T)
def not_bool_strided(rng):
    x = (rng.random(32) < 0.5)[::2]
    return {"x": x}, {"y": ~x}


@case(T)
def where_mask(rng):
    m, x = rng.random((4, 8)) < 0.5, randn(rng, 4, 8)
    return {"m": m, "x": x}, {"y": np.where(m, x, f32(0.0))}


@case(T)
def greater_bool_out(rng):
    x, t = randn(rng, 8, 4).T, np.array(0.1, dtype=f32)
    return {"x": x, "t": t}, {"y": x > t}


@case(T)
def flip_i8(rng):
    x = idx(rng, -50, 51, 16, i8)
    return {"x": x}, {"y": x[::-1] * i8(2)}


@case(T)
def transpose_i16(rng):
    x = idx(rng, -30000, 30000, (6, 10), i16)
    return {"x": x}, {"y": x.T + i16(1)}


@case(T)
def strided_i32(rng):
    x = idx(rng, -2**31 + 3, 2**31, 32, i32)[::2]
    return {"x": x}, {"y": x - i32(3)}


@case(T)
def transposed_i64(rng):
    x = idx(rng, -2**40, 2**40, (4, 4)).T
    return {"x": x}, {"y": x * 3 - 7}


@case(T)
def lut_u8(rng):
    table, img = idx(rng, 0, 256, 256, u8), idx(rng, 0, 256, (4, 6), u8)
    return {"table": table, "img": img}, {"y": table[img]}


@case(T)
def u8_to_f32_strided(rng):
    x = idx(rng, 0, 256, (8, 16), u8)[:, :8]
    return {"x": x}, {"y": x.astype(f32) / f32(255.0)}


@case(T)
def permute_f16(rng):
    x = randn(rng, 4, 6, 8, dtype=f16)
    return {"x": x}, {"y": x.transpose(2, 0, 1) * f16(2.0) + f16(1.0)}


@case(T)
def f16_to_f32_flipped(rng):
    x = randn(rng, 8, dtype=f16)[::-1]
    return {"x": x}, {"y": x.astype(f32)}


@case(T)
def channels_last_bf16(rng):
    x = BF16(randn(rng, 2, 3, 4, 5))
    return {"x": x}, {"y": BF16(x.values * f32(2.0) + f32(1.0))}


@case(T, tol=0)  # a single rounding: must be exactly round-to-nearest-even
def f32_to_bf16_transposed(rng):
    x = randn(rng, 6, 8).T
    return {"x": x}, {"y": BF16(x)}


@case(T, tol=0)
def gather_bf16(rng):
    table, ind = BF16(randn(rng, 10, 4)), idx(rng, 0, 10, 5)
    return {"table": table, "idx": ind}, {"y": BF16(table.values[ind])}


@case(T)
def sum_f64_transposed(rng):
    x = randn(rng, 5, 6, dtype=f64).T
    return {"x": x}, {"y": x.sum(-1)}


@case(T)
def f64_to_i32_transposed(rng):
    x = randn(rng, 3, 4, dtype=f64) * 10
    return {"x": x}, {"y": x.T.astype(i32)}


# ---- inductor.ath and masked.ath: the index forms Inductor emits, masked loads

IND = "inductor.ath"
MSK = "masked.ath"


def wrapped_idx(rng, n, size):
    """Indices in [-n, n) with both ends and negatives."""
    return np.concatenate([[-n, -1, 0, n - 1], idx(rng, -n, n, size - 4)]).astype(i64)


@case(IND)
def embed_wrap_flat(rng):
    t, ind = randn(rng, 64, 32), wrapped_idx(rng, 64, 8)
    return {"t": t, "idx": ind}, {"out": t[ind]}


@case(IND)
def embed_wrap_dim(rng):
    t, ind = randn(rng, 64, 32), wrapped_idx(rng, 64, 8)
    return {"t": t, "idx": ind}, {"out": t[ind]}


@case(IND)
def index_select_cols(rng):
    t, ind = randn(rng, 16, 64), wrapped_idx(rng, 64, 5)
    return {"t": t, "idx": ind}, {"out": t[:, ind]}


@case(IND)
def embed_flat_digit(rng):
    t, ind = randn(rng, 64, 32), idx(rng, 0, 64, 10)
    return {"t": t, "idx": ind}, {"y": t[ind].reshape(-1)}


@case(IND)
def embed_flat_digit_two(rng):
    a, b = randn(rng, 64, 32), randn(rng, 20, 32)
    ia, ib = wrapped_idx(rng, 64, 10), idx(rng, 0, 20, 10, i32)
    return {"a": a, "b": b, "ia": ia, "ib": ib}, {"y": (a[ia] + b[ib]).reshape(-1)}


@case(IND)
def embed_flat_digit_2d(rng):
    t, ind = randn(rng, 64, 32), wrapped_idx(rng, 64, 10).reshape(2, 5)
    return {"t": t, "idx": ind}, {"y": t[ind].reshape(-1)}


@case(IND)
def embed_digit_2d_subscripts(rng):
    t, ind = randn(rng, 64, 32), wrapped_idx(rng, 64, 10).reshape(2, 5)
    return {"t": t, "idx": ind}, {"y": t[ind].reshape(-1)}


@case(IND)
def roll_flat(rng):
    x = randn(rng, 4, 16)
    return {"x": x}, {"y": np.roll(x, 3, 1)}


@case(IND)
def roll_dim(rng):
    x = randn(rng, 4, 16)
    return {"x": x}, {"y": np.roll(x, 3, 1)}


@case(IND)
def roll_flipped(rng):
    x = randn(rng, 4, 16)
    return {"x": x}, {"y": np.roll(x[:, ::-1], -5, 1)}


@case(IND)
def roll_rows(rng):
    x = randn(rng, 4, 16)
    return {"x": x}, {"y": np.roll(x, -1, 0) * np.float32(2.0)}


@case(IND)
def embed_flat_digit_wrap(rng):
    t, ind = randn(rng, 64, 32), wrapped_idx(rng, 64, 10)
    return {"t": t, "idx": ind}, {"y": t[ind].reshape(-1)}


@case(IND)
def slice_step5_flat(rng):
    x = randn(rng, 6, 17)
    return {"x": x}, {"y": x[:, 2::5]}


@case(IND)
def slice_step5(rng):
    x = randn(rng, 6, 17)
    return {"x": x}, {"y": x[:, 2::5]}


@case(IND)
def slice_23_step24_flat(rng):
    x = randn(rng, 4, 128)
    return {"x": x}, {"y": x[:, 23::24]}


@case(IND)
def slice_rev_steps(rng):
    x = randn(rng, 6, 17)
    return {"x": x}, {"y": x[::-2, 16::-7].T}


@case(IND)
def slice_steps_strided_layout(rng):
    x = randn(rng, 5, 9)  # its logical value; --in lays it out
    return {"x": x}, {"y": x[1::3, ::4]}


@case(IND)
def clamp_shift(rng):
    x = randn(rng, 64)
    return {"x": x}, {"y": x[np.clip(np.arange(64) - 1, 0, 63)].reshape(4, 16)}


@case(IND, tol=(1e-5, 1e-6))
def softmax_flat(rng):
    x = randn(rng, 64, 32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"x": x}, {"y": (e / e.sum(axis=1, keepdims=True)).astype(f32)}


@case(IND)
def causal_max(rng):
    x = randn(rng, 8, 32, 32)
    masked = np.where(np.arange(32)[None, None, :] > np.arange(32)[None, :, None], -np.inf, x / f32(4.0))
    return {"x": x}, {"m": masked.max(axis=2).astype(f32)}


@case(MSK)
def pad_cols_flat(rng):
    x = randn(rng, 4, 16)
    return {"x": x}, {"y": np.pad(x, ((0, 0), (1, 2)))}


@case(MSK)
def pad_cols(rng):
    x = randn(rng, 4, 16)
    return {"x": x}, {"y": np.pad(x, ((0, 0), (1, 2)), constant_values=-1.0)}


@case(MSK)
def pad_2d(rng):
    x = randn(rng, 4, 16)
    return {"x": x}, {"y": np.pad(x, ((2, 1), (1, 3)))}


@case(MSK)
def cat_cols(rng):
    a, b = randn(rng, 4, 16), randn(rng, 4, 8)
    return {"a": a, "b": b}, {"y": np.concatenate([a, b], 1)}


@case(MSK)
def cat_rows_flat(rng):
    a, b = randn(rng, 4, 16), randn(rng, 3, 16)
    return {"a": a, "b": b}, {"y": np.concatenate([a, b], 0)}


@case(MSK)
def cat_three(rng):
    a, b, c = randn(rng, 5), randn(rng, 3), randn(rng, 4)
    return {"a": a, "b": b, "c": c}, {"y": np.concatenate([a, b, c])}


@case(MSK)
def pad_all_masked(rng):
    x = randn(rng, 4, 16)
    return {"x": x}, {"y": np.full((4, 16), 1.5, dtype=f32)}


@case(MSK)
def diff_left(rng):
    x = randn(rng, 8, 32)
    return {"x": x}, {"y": x - np.pad(x, ((0, 0), (1, 0)))[:, :32]}


@case(MSK)
def window_sum_padded(rng):
    x = randn(rng, 64)
    p = np.pad(x, (1, 1))
    return {"x": x}, {"y": (p[:-2] + p[1:-1] + p[2:]).astype(f32)}


# ----------------------------------------------------------------------------- helpers


KERNEL_RE = re.compile(r"^\s*kernel\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)


def example_kernels():
    found = {}
    for f in sorted(EXAMPLES.glob("*.ath")):
        for name in KERNEL_RE.findall(f.read_text()):
            found.setdefault(name, []).append(f.name)
    return found


def kernel_source(file, name):
    """The text of one kernel of an example file (its `kernel` line to its closing brace)."""
    text = (EXAMPLES / file).read_text()
    m = re.search(r"^kernel\s+" + name + r"\b.*?^\}", text, re.M | re.S)
    assert m, (file, name)
    return m.group(0)


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def check_outputs(r, got, expected, tol):
    assert r.returncode == 0, f"athene exited {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    for name, exp in expected.items():
        compare(name, got[name], exp, tol)


# ----------------------------------------------------------------------------- the tests


def test_every_example_is_covered():
    found = example_kernels()
    dup = {k: v for k, v in found.items() if len(v) > 1}
    assert not dup, f"kernel names defined more than once: {dup}"
    missing = sorted(k for k in found if k not in CASES)
    assert not missing, f"example kernels without a NumPy check in {__file__}: {missing}"
    stale = sorted(k for k in CASES if k not in found)
    assert not stale, f"table entries for kernels not in examples/: {stale}"
    wrong_file = sorted(k for k, c in CASES.items() if found[k][0] != c.file)
    assert not wrong_file, f"table entries naming the wrong file: {wrong_file}"


@pytest.mark.parametrize("file", sorted(p.name for p in EXAMPLES.glob("*.ath")))
def test_check_example_file(file):
    r = athene("check", EXAMPLES / file)
    assert r.returncode == 0, r.stdout + r.stderr


FULL_SIZE = re.compile(r"^(perm3_2x1152x|perm4_2x4x128x2048_|perm4_1152x1152x2x4_|view_T_2048x2048$)")
FULL_SIZE_SAMPLE = {"view_T_2048x2048", "perm3_2x1152x2048_201_collapsed",
                    "perm3_2x1152x2048_120_divmod", "perm4_2x4x128x2048_3120",
                    "perm4_1152x1152x2x4_3201_collapsed"}
RUN_ALL = any(os.environ.get(v, "") not in ("", "0") for v in ("ATHENE_FULL_EXAMPLES", "ATHENE_TEST_ALL"))
RUN_KERNELS = sorted(k for k in CASES if RUN_ALL or not FULL_SIZE.match(k) or k in FULL_SIZE_SAMPLE)


def test_full_size_kernels_have_scaled_twins():
    """Every full-size permutation left out by default has a small twin that always runs."""
    for k in CASES:
        if FULL_SIZE.match(k):
            twin = re.sub(r"^(perm\d)_\d+(x\d+)*_", "", k)
            assert any(t.endswith(twin + "_s") for t in CASES if t.startswith(k[:5])) \
                or k == "view_T_2048x2048", k
    assert FULL_SIZE_SAMPLE <= set(CASES)


@pytest.mark.parametrize("kernel", RUN_KERNELS)
def test_example(kernel, tmp_path):
    c = CASES[kernel]
    inputs, expected = c.build(rng_for(kernel))
    r, got = run_kernel(tmp_path, c.file, kernel, inputs, list(expected), c.sizes)
    check_outputs(r, got, expected, c.tol)


# ---- the transposed view with symbolic sizes, over every shape of CASES.md A


@pytest.mark.parametrize("shape", [(32, 32), (64, 32), (5, 8), (3215, 23), (8, 128), (128, 8),
                                   (1, 7), (7, 1), (0, 3)])
def test_view_T_sym_shapes(shape, tmp_path):
    x = randn(rng_for(str(shape)), *shape).T
    r, got = run_kernel(tmp_path, L, "view_T_sym", {"x": x}, ["y"])
    check_outputs(r, got, {"y": affine(x)}, None)


def test_view_T_sym_sizes_given(tmp_path):
    """Sizes given with --size and agreeing with the --in shape."""
    x = randn(rng_for("given"), 6, 4).T
    r, got = run_kernel(tmp_path, L, "view_T_sym", {"x": x}, ["y"], {"N": 6, "M": 4})
    check_outputs(r, got, {"y": affine(x)}, None)


def test_size_conflicting_with_input_shape(tmp_path):
    x = randn(rng_for("conflict"), 6, 4).T
    r, got = run_kernel(tmp_path, L, "view_T_sym", {"x": x}, ["y"], {"M": 5})
    assert r.returncode == 1, r.stdout + r.stderr
    assert "error" in r.stderr
    assert not (tmp_path / "out_y.npy").exists()


def test_symbol_shared_between_inputs_must_agree(tmp_path):
    """gather_wrap_sym(table: [V, D], idx: [S], scale: [D]): scale's D differs from table's."""
    rng = rng_for("agree")
    table, scale = randn(rng, 10, 6), randn(rng, 5)
    ind = np.array([1, 2], dtype=i64)
    r, _ = run_kernel(tmp_path, G, "gather_wrap_sym", {"table": table, "idx": ind, "scale": scale},
                      ["out"])
    assert r.returncode == 1, r.stdout + r.stderr
    assert "D" in r.stderr
    assert not (tmp_path / "out_out.npy").exists()


def test_symbolic_bounds_checked_once_sizes_are_bound(tmp_path):
    """unfold_sym reads x[2*w + k], k < 4: S = 6 needs N >= 14; N = 13 is provably out of range."""
    x = randn(rng_for("unfold"), 13)
    r, _ = run_kernel(tmp_path, B, "unfold_sym", {"x": x}, ["y"], {"S": 6})
    assert r.returncode == 1, r.stdout + r.stderr
    assert "error" in r.stderr
    assert not (tmp_path / "out_y.npy").exists()


@pytest.mark.parametrize("n", [0, 1, 7, 33])
def test_arange_sym_sizes(n, tmp_path):
    r, got = run_kernel(tmp_path, B, "arange_sym", {}, ["y"], {"N": n})
    check_outputs(r, got, {"y": arange(n)}, None)


@pytest.mark.parametrize("n", [0, 1, 2, 16])
def test_embedding_sizes_inferred(n, tmp_path):
    rng = rng_for(f"emb{n}")
    weight, ind = randn(rng, 7, 3), idx(rng, 0, 7, n)
    r, got = run_kernel(tmp_path, G, "embedding", {"weight": weight, "indices": ind}, ["y"])
    check_outputs(r, got, {"y": weight[ind]}, None)


def test_missing_size_is_a_user_error(tmp_path):
    r, _ = run_kernel(tmp_path, B, "arange_sym", {}, ["y"])
    assert r.returncode == 1, r.stdout + r.stderr
    assert "N" in r.stderr


# ---- run-time index errors


def expect_index_error(r, out_path, tensor, dim, value, position):
    assert r.returncode == 1, f"exit {r.returncode}\n{r.stdout}{r.stderr}"
    err = r.stderr
    assert "error" in err, err
    assert tensor in err, err
    assert re.search(rf"\bdim\s*{dim}\b", err), err
    assert re.search(rf"(?<![\d-]){value}(?!\d)", err), err
    assert re.sub(r"\s", "", position) in re.sub(r"\s", "", err), err
    assert not out_path.exists(), "the output file must not be written on a run-time error"


def test_out_of_range_index_is_a_clean_error(tmp_path):
    table = randn(rng_for("bad"), 16, 4)
    ind = np.array([0, 1, 2, 20, 3], dtype=i64)
    r, _ = run_kernel(tmp_path, "bad_index.ath", "gather", {"table": table, "idx": ind}, ["out"])
    expect_index_error(r, tmp_path / "out_out.npy", "table", 0, 20, "out[3, 0]")
    assert "gather" in r.stderr


def test_negative_index_without_wrap_is_an_error(tmp_path):
    table = randn(rng_for("neg"), 16, 4)
    ind = np.array([0, -1], dtype=i64)
    r, _ = run_kernel(tmp_path, "bad_index.ath", "gather", {"table": table, "idx": ind}, ["out"])
    expect_index_error(r, tmp_path / "out_out.npy", "table", 0, -1, "out[1, 0]")


def test_index_equal_to_size_is_an_error(tmp_path):
    table = randn(rng_for("eq"), 16, 4)
    ind = np.array([15, 16, 0], dtype=i64)
    r, _ = run_kernel(tmp_path, "bad_index.ath", "gather", {"table": table, "idx": ind}, ["out"])
    expect_index_error(r, tmp_path / "out_out.npy", "table", 0, 16, "out[1, 0]")


def test_wrap_below_minus_size_is_an_error(tmp_path):
    rng = rng_for("wrap")
    table, scale = randn(rng, 10, 6), randn(rng, 6)
    ind = np.array([-10, 2, -11], dtype=i64)
    r, _ = run_kernel(tmp_path, G, "gather_wrap_sym", {"table": table, "idx": ind, "scale": scale},
                      ["out"])
    assert r.returncode == 1, r.stdout + r.stderr
    assert "table" in r.stderr and re.search(r"\bdim\s*0\b", r.stderr), r.stderr
    # the value may be reported as written (-11) or as wrapped (-1)
    assert re.search(r"-11\b|-1\b", r.stderr), r.stderr
    assert re.search(r"out\[\s*2\s*,\s*0\s*\]", r.stderr), r.stderr
    assert not (tmp_path / "out_out.npy").exists()


def test_bad_index_in_second_gather_names_that_tensor(tmp_path):
    rng = rng_for("two")
    a, b = randn(rng, 32), randn(rng, 20)
    i0, i1 = idx(rng, 0, 32, 10), idx(rng, 0, 20, 10, i32)
    i1[6] = 20
    r, _ = run_kernel(tmp_path, G, "gather_two", {"a": a, "b": b, "i0": i0, "i1": i1}, ["y"])
    expect_index_error(r, tmp_path / "out_y.npy", "b", 0, 20, "y[6]")


def test_2d_gather_bad_second_index(tmp_path):
    rng = rng_for("g2d")
    t = randn(rng, 8, 6, 4)
    r_, c_ = idx(rng, 0, 8, 5), idx(rng, 0, 6, 5)
    c_[2] = 6
    r, _ = run_kernel(tmp_path, G, "gather_2d", {"t": t, "r": r_, "c": c_}, ["y"])
    expect_index_error(r, tmp_path / "out_y.npy", "t", 1, 6, "y[2, 0]")


def test_u8_lut_indices_are_always_in_range(tmp_path):
    """u8 indices cover 0..255, all of them valid for a 256-entry table."""
    table = idx(rng_for("lut"), 0, 256, 256, u8)
    img = np.arange(256, dtype=u8)[::-1][:24].reshape(4, 6)
    img[0, 0], img[0, 1] = 0, 255
    r, got = run_kernel(tmp_path, T, "lut_u8", {"table": table, "img": img}, ["y"])
    check_outputs(r, got, {"y": table[img]}, None)


# ---- .npy inputs in other layouts and byte orders, and inconsistent broadcast values


@pytest.mark.parametrize("kind", ["fortran", "big_endian", "non_contiguous_source"])
def test_npy_input_forms(kind, tmp_path):
    """The same logical values reach the kernel whatever the .npy file's order or byte order."""
    x = randn(rng_for(kind), 32, 32)[::2, ::2]
    p = tmp_path / "x.npy"
    if kind == "fortran":
        np.save(p, np.asfortranarray(x))
    elif kind == "big_endian":
        np.save(p, x.astype(">f4"))
    else:
        np.save(p, x)
    out = tmp_path / "y.npy"
    r = athene("run", EXAMPLES / L, "--kernel", "view_both_step2", "--in", f"x={p}",
               "--out", f"y={out}", "--reference")
    check_outputs(r, {"y": np.load(out)} if r.returncode == 0 else {}, {"y": affine(x)}, None)


def test_expanded_input_with_differing_values_is_an_error(tmp_path):
    """a: f32[8, 16] strides(0, 1) holds one row; rows that differ cannot be placed in it."""
    rng = rng_for("expand")
    a, b = randn(rng, 8, 16), randn(rng, 8, 16)
    r, _ = run_kernel(tmp_path, L, "view_expand_2d", {"a": a, "b": b}, ["y"])
    assert r.returncode == 1, r.stdout + r.stderr
    assert re.search(r"\ba\b", r.stderr), r.stderr
    assert not (tmp_path / "out_y.npy").exists()


# ---- a whole file without --kernel


def test_run_all_kernels_without_kernel_flag(tmp_path):
    """Every kernel of a file runs on random inputs; one summary line per output."""
    kernels = [("strided.ath", k) for k in ["slice_step2", "slice_chain", "rope_halves",
                                            "flip_of_transpose"]]
    kernels += [("layouts.ath", "view_flip_of_transpose"), ("layouts.ath", "colmajor_out"),
                ("permute.ath", "perm4_2x4x8x16_3120_s"), ("beyond.ath", "iota_two_outputs"),
                ("beyond.ath", "scalar_0d"), ("dtypes.ath", "channels_last_bf16"),
                ("reduce.ath", "softmax_strided"), ("gather.ath", "gather_2d")]
    src = tmp_path / "several.ath"
    src.write_text("\n\n".join(kernel_source(f, k) for f, k in kernels) + "\n")
    outputs = []
    for f, k in kernels:
        sig = re.search(r"->\s*\((.*?)\)\s*\{", kernel_source(f, k), re.S)
        outputs += [(k, o) for o in re.findall(r"([A-Za-z_]\w*)\s*:", sig.group(1))]
    assert len(outputs) == len(kernels) + 2
    r = athene("run", src, "--reference", "--seed", 7)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    assert len(lines) == len(outputs), r.stdout
    for k, o in outputs:
        assert any(k in ln and re.search(rf"\b{o}\b", ln) for ln in lines), (k, o, r.stdout)


SIZES = {"N": 64, "D": 32, "V": 100, "S": 16, "B": 4, "M": 48, "K": 24}


@pytest.mark.parametrize("file", sorted(p.name for p in EXAMPLES.glob("*.ath")
                                        if p.name not in ("permute.ath", "bad_index.ath")))
def test_run_whole_example_file(file):
    """A whole example file on random inputs (permute.ath is left out: ~400M elements)."""
    text = (EXAMPLES / file).read_text()
    outputs = []
    for m in re.finditer(r"^kernel\s+(\w+).*?->\s*\((.*?)\)\s*\{", text, re.M | re.S):
        outputs += [(m.group(1), o) for o in re.findall(r"([A-Za-z_]\w*)\s*:", m.group(2))]
    syms = set(re.findall(r"\b([A-Z])\b", "".join(re.findall(r"\[[^\]]*\]", text))))
    args = [a for sym in sorted(syms & set(SIZES)) for a in ("--size", f"{sym}={SIZES[sym]}")]
    r = athene("run", EXAMPLES / file, *args, "--reference", "--seed", 1)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    assert len(lines) == len(outputs), r.stdout
    for k, o in outputs:
        assert any(re.search(rf"\b{k}\b", ln) and re.search(rf"\b{o}\b", ln) for ln in lines), \
            (k, o)


@pytest.mark.parametrize("dtype", ["bool", "i8", "i16", "i32", "i64", "u8", "f16", "bf16", "f32",
                                   "f64"])
def test_random_inputs_of_every_dtype(dtype, tmp_path):
    """Inputs left out are generated: a strided copy of each dtype runs and writes its output."""
    src = tmp_path / "k.ath"
    src.write_text(f"kernel k(x: {dtype}[4, 3] strides(1, 8)) -> (y: {dtype}[3, 4]) {{\n"
                   f"    y[j, i] = x[i, j]\n}}\n")
    out = tmp_path / "y.npy"
    r = athene("run", src, "--kernel", "k", "--out", f"y={out}", "--reference")
    assert r.returncode == 0, r.stdout + r.stderr
    y = load_npy(out)
    assert y.shape == (3, 4)


def test_in_not_allowed_without_kernel(tmp_path):
    p = tmp_path / "x.npy"
    np.save(p, arange(16))
    r = athene("run", EXAMPLES / S, "--in", f"x={p}", "--reference")
    assert r.returncode == 2, r.stdout + r.stderr


def test_run_same_kernel_twice_is_deterministic_with_seed(tmp_path):
    """Random inputs with --seed: two runs write identical outputs."""
    outs = []
    for n in range(2):
        p = tmp_path / f"y{n}.npy"
        r = athene("run", EXAMPLES / L, "--kernel", "view_flip_of_transpose", "--seed", 3,
                   "--out", f"y={p}", "--reference")
        assert r.returncode == 0, r.stdout + r.stderr
        outs.append(np.load(p))
    assert outs[0].shape == (8, 6) and outs[0].dtype == f32
    np.testing.assert_array_equal(outs[0], outs[1])


# ---- bf16 helpers are themselves tested, so a bug there cannot hide one in athene


def test_bf16_rounding_helper():
    x = np.array([1.0, 1.0 + 2**-8, 1.0 + 3 * 2**-8, 1.0 + 2**-8 + 2**-20, -2.5, 0.0],
                 dtype=f32)
    np.testing.assert_array_equal(
        bf16_round(x), np.array([1.0, 1.0, 1.0 + 4 * 2**-8, 1.0 + 2**-7, -2.5, 0.0], dtype=f32))


# ---- inductor.ath and masked.ath: errors, other shapes, what explain says


def test_inductor_wrap_out_of_range_is_a_clean_error(tmp_path):
    """The recognised wrap accepts [-64, 64): -65 and 64 are clean, located errors."""
    t = randn(rng_for("iw"), 64, 32)
    for bad in (-65, 64, -1000):
        for kernel in ("embed_wrap_flat", "embed_wrap_dim"):
            ind = np.array([0, -1, bad, 3, 0, 0, 0, 0], dtype=i64)
            r, _ = run_kernel(tmp_path, IND, kernel, {"t": t, "idx": ind}, ["out"])
            assert r.returncode == 1, r.stdout + r.stderr
            assert "error" in r.stderr and "'t'" in r.stderr and "inductor.ath:" in r.stderr, r.stderr
            assert re.search(r"out\[\s*2\s*,\s*0\s*\]", r.stderr), r.stderr
            assert not (tmp_path / "out_out.npy").exists()


@pytest.mark.parametrize("kernel", ["embed_wrap_flat", "embed_wrap_dim", "index_select_cols",
                                    "embed_flat_digit", "embed_flat_digit_wrap",
                                    "embed_flat_digit_two", "embed_flat_digit_2d",
                                    "embed_digit_2d_subscripts"])
@pytest.mark.parametrize("target", ["cpu", "tpu"])
def test_inductor_gathers_are_row_gathers(kernel, target):
    r = athene("explain", EXAMPLES / IND, "--kernel", kernel, "--target", target)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "row gather" in r.stdout and "element gather" not in r.stdout, r.stdout
    assert "scalar prefetch" in r.stdout, r.stdout


@pytest.mark.parametrize("kernel", ["slice_step5_flat", "slice_step5", "slice_23_step24_flat",
                                    "slice_rev_steps", "slice_steps_strided_layout"])
def test_strided_slices_of_declared_dims_are_views(kernel):
    r = athene("explain", EXAMPLES / IND, "--kernel", kernel)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "element gather" not in r.stdout and "strided" in r.stdout, r.stdout


@pytest.mark.parametrize("kernel", ["roll_flat", "roll_dim", "roll_flipped", "roll_rows"])
def test_rolls_are_two_pieces_of_one_view(kernel):
    """torch.roll is two masked pieces of one array on cpu; a target whose backend reads no pieces
    reads it element by element, and says why."""
    c = athene("explain", EXAMPLES / IND, "--kernel", kernel, "--target", "cpu")
    assert c.returncode == 0, c.stdout + c.stderr
    assert "element gather" not in c.stdout and "rolled" in c.stdout, c.stdout
    assert re.search(r"^          and   reshape \(", c.stdout, re.M), c.stdout
    assert "rolled: read in two pieces, where " in c.stdout, c.stdout
    t = athene("explain", EXAMPLES / IND, "--kernel", kernel, "--target", "tpu")
    assert t.returncode == 0 and "reads no rolled pieces" in t.stdout, t.stdout + t.stderr


def test_clamp_reason_is_honest():
    r = athene("explain", EXAMPLES / IND, "--kernel", "clamp_shift")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "reads no data" in r.stdout and "[0, 62]" in r.stdout, r.stdout
    assert "data-dependent" not in r.stdout, r.stdout


@pytest.mark.parametrize("kernel", ["pad_cols_flat", "pad_cols", "pad_2d", "cat_cols",
                                    "cat_rows_flat", "cat_three", "diff_left"])
def test_masked_loads_are_views_with_a_masked_region(kernel):
    """The analysis finds the view with its padded region, and the cpu plan moves it as a view
    (the executor fills the padding); tpu keeps it a view too (the Pallas wrapper pads the array),
    and a target whose backend fills no pads would read it element by element, saying so."""
    c = athene("explain", EXAMPLES / MSK, "--kernel", kernel, "--target", "cpu")
    assert c.returncode == 0, c.stdout + c.stderr
    assert "element gather" not in c.stdout and "pad (" in c.stdout, c.stdout
    assert re.search(r"^    load  \w+ +(\w+, )*masked", c.stdout, re.M), c.stdout
    r = athene("explain", EXAMPLES / MSK, "--kernel", kernel, "--target", "tpu")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "element gather" not in r.stdout and "view  none:" not in r.stdout, r.stdout
    assert "pad (" in r.stdout and "masked: read only where" in r.stdout, r.stdout
    d = athene("-d", "analyse", "check", EXAMPLES / MSK, "--kernel", kernel)
    assert d.returncode == 0 and "pad (" in d.stdout and "none:" not in d.stdout, d.stdout + d.stderr


PAD_KERNEL = """
kernel pad(x: f32[R, C]) -> (y: f32[{rows}, {cols}]) {{
    y[i, j] = where(i >= {top} && i < {top} + R && j >= {left} && j - {left} < C, x[i - {top}, j - {left}], 2.5)
}}
"""


@pytest.mark.parametrize("shape,pads", [((1, 1), (0, 0, 0, 0)), ((3, 5), (1, 0, 0, 2)),
                                        ((2, 7), (3, 3, 1, 1)), ((6, 1), (0, 4, 5, 0)),
                                        ((4, 4), (0, 0, 9, 0))])
def test_pads_of_several_shapes(shape, pads, tmp_path):
    top, bottom, left, right = pads
    rows, cols = shape[0] + top + bottom, shape[1] + left + right
    src = tmp_path / "pad.ath"
    src.write_text(PAD_KERNEL.format(rows=rows, cols=cols, top=top, left=left))
    x = randn(rng_for("pads"), *shape)
    r, got = run_kernel(tmp_path, src, "pad", {"x": x}, ["y"])
    exp = np.pad(x, ((top, bottom), (left, right)), constant_values=2.5)
    check_outputs(r, got, {"y": exp}, None)
    e = athene("-d", "analyse", "check", src, "--size", f"R={shape[0]}", "--size", f"C={shape[1]}")
    assert e.returncode == 0 and "none:" not in e.stdout, e.stdout + e.stderr


def test_masked_load_out_of_bounds_inside_its_mask_is_an_error(tmp_path):
    """The guard narrows the check, it does not switch it off: j - 1 < 17 lets j - 1 = 16 through."""
    src = tmp_path / "badpad.ath"
    src.write_text("kernel k(x: f32[4, 16]) -> (y: f32[4, 19]) {\n"
                   "    y[i, j] = where(j >= 1 && j < 18, x[i, j - 1], 0.0)\n}\n")
    r = athene("check", src)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "badpad.ath:2:" in r.stderr and "out of bounds" in r.stderr and "j=17" in r.stderr, r.stderr


def test_load_in_the_branch_not_taken_is_not_checked(tmp_path):
    """Without the where, the same load is a compile error."""
    src = tmp_path / "p.ath"
    src.write_text("kernel k(x: f32[16]) -> (y: f32[18]) {\n    y[i] = x[i - 1]\n}\n")
    assert athene("check", src).returncode == 1


@pytest.mark.parametrize("target", ["cpu", "tpu"])
def test_huge_sizes_plan_without_internal_errors(target, tmp_path):
    src = tmp_path / "huge.ath"
    src.write_text("kernel k(x: f32[N]) -> (y: f32[N]) { y[i] = x[i] }\n"
                   "kernel r(x: f32[N]) -> (y: f32[]) { y = max(i: x[i]) }\n")
    for n in (9223372036854775807, 4611686018427387904):
        r = athene("explain", src, "--size", f"N={n}", "--target", target, timeout=20)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "internal" not in r.stderr, r.stderr


def test_tpu_unfold_on_large_dims_is_a_valid_plan(tmp_path):
    src = tmp_path / "unfold.ath"
    src.write_text("kernel k(x: f32[6, 1048576]) -> (y: f32[16, 9]) "
                   "{ y[p, q] = x[p // 4 + q // 3, p % 4 + q % 3] }\n")
    r = athene("explain", src, "--target", "tpu")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "over the tpu budget" in r.stdout, r.stdout


CAT_KERNEL = """
kernel cat(a: f32[{ra}, {ca}], b: f32[{rb}, {cb}]) -> (y: f32[{ry}, {cy}]) {{
    y[i, j] = where({cond}, a[i, j], b[{bi}, {bj}])
}}
"""


@pytest.mark.parametrize("axis,na,nb,other", [(1, 1, 1, 1), (1, 3, 5, 2), (1, 7, 2, 4),
                                               (0, 1, 4, 3), (0, 5, 2, 6), (0, 2, 2, 1)])
def test_cats_of_several_shapes(axis, na, nb, other, tmp_path):
    """torch.cat([a, b], axis): two masked loads with complementary conditions."""
    if axis == 1:
        sa, sb, sy = (other, na), (other, nb), (other, na + nb)
        cond, bi, bj = f"j < {na}", "i", f"j - {na}"
    else:
        sa, sb, sy = (na, other), (nb, other), (na + nb, other)
        cond, bi, bj = f"i < {na}", f"i - {na}", "j"
    src = tmp_path / "cat.ath"
    src.write_text(CAT_KERNEL.format(ra=sa[0], ca=sa[1], rb=sb[0], cb=sb[1], ry=sy[0], cy=sy[1],
                                     cond=cond, bi=bi, bj=bj))
    rng = rng_for("cats")
    a, b = randn(rng, *sa), randn(rng, *sb)
    r, got = run_kernel(tmp_path, src, "cat", {"a": a, "b": b}, ["y"])
    check_outputs(r, got, {"y": np.concatenate([a, b], axis)}, None)
    e = athene("-d", "analyse", "check", src)
    assert e.returncode == 0 and "none:" not in e.stdout, e.stdout + e.stderr


BIG_MASKED = """
kernel pad2(x: f32[1000, 3000]) -> (y: f32[1003, 3007]) {
    y[i, j] = where(i >= 2 && i < 1002 && j >= 5 && j < 3005, x[i - 2, j - 5], 0.5)
}
kernel pad_transposed(x: f32[3000, 1000]) -> (y: f32[1003, 3007]) {
    y[i, j] = where(i >= 2 && i < 1002 && j >= 5 && j < 3005, x[j - 5, i - 2], 0.5)
}
kernel cat_scaled(a: f32[1000, 1500], b: f32[1000, 2000]) -> (y: f32[1000, 3500]) {
    y[i, j] = where(j < 1500, a[i, j], b[i, j - 1500]) * 2.0
}
kernel pad_sum(x: f32[1000, 300]) -> (y: f32[1000]) {
    y[i] = sum(k < 310: where(k >= 5 && k < 305, x[i, k - 5], 0.0))
}
kernel roll_cols(x: f32[1000, 3000]) -> (y: f32[1000, 3000]) {
    y[i, j] = x[i, (j + 1000) % 3000]
}
kernel roll_rows_scaled(x: f32[1000, 3000]) -> (y: f32[1000, 3000]) {
    y[i, j] = x[(i + 999) % 1000, j] * 2.0
}
kernel roll_flipped_transposed(x: f32[3000, 1000]) -> (y: f32[1000, 3000]) {
    y[i, j] = x[(5 - j) % 3000, i]
}
"""


def test_big_masked_and_rolled_views_run_natively_as_the_interpreter(tmp_path):
    """Pads, cats and rolls big enough for several grid blocks, staged boxes that straddle the
    padding and the pieces, and streamed stores: the executor with 3 threads against the
    interpreter, bit for bit (--check), each a masked or rolled view in the plan."""
    src = tmp_path / "big_masked.ath"
    src.write_text(BIG_MASKED)
    e = athene("explain", src)
    assert e.returncode == 0 and "element gather" not in e.stdout, e.stdout + e.stderr
    assert e.stdout.count("masked") >= 7 and e.stdout.count(" rolled") >= 3, e.stdout
    r = athene("run", src, "--check", "--threads", "3", timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("max_diff=0 ok") == 7, r.stdout
