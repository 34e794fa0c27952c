"""Every example kernel's traceable K_pure through the TPU toolchain on this CPU-only machine:
jax.export for platform "tpu" (Pallas's TPU block rules, with a chip pinned by an abstract
mesh), and the real Mosaic compiler through libtpu's compile-only devices for v5e and v6e.

What the TPU compiler rejects would be listed in REJECTED with a fragment of its message (and in
docs/pallas.md): a kernel there must still fail with it, every other kernel must compile. Today
every example kernel compiles.

Every kernel is exported. The Mosaic compile takes 0.1-9 s a kernel and chip, about ten minutes
for all of them here, so by default it runs for COMPILED (the scaled-down twins and small kernels
of every example file, and one full-size kernel); ATHENE_PALLAS_ALL_TPU=1 or ATHENE_TEST_ALL=1
(`make test-all`, which CI runs) compiles every one."""
import functools
import inspect
import os
import re

import jax
import numpy as np
import pytest
from jax.experimental import topologies
from jax.sharding import AbstractDevice, AbstractMesh, use_abstract_mesh

import test_examples as TE

KERNELS = sorted(TE.CASES)
ALL = any(os.environ.get(v, "") not in ("", "0") for v in ("ATHENE_PALLAS_ALL_TPU", "ATHENE_TEST_ALL"))
CHIPS = {"v5e": ("v5e:2x2", "TPU v5 lite"), "v6e": ("v6e:2x2", "TPU v6 lite")}

# The Mosaic compile by default: small kernels of every example file covering CASES.md A and B
# (strided, views, permutations in both forms, gathers, reshuffles, reductions, dtypes), one
# full-size permutation, and kernels that take the wrapper's paths (element gathers, merged
# digits, strided slices, masked views, statements in XLA).
COMPILED = sorted({
    "slice_5_step2", "slice_chain", "rope_interleaved", "rope_halves", "slice_step3", "slice_2_14_5",
    "flip_1d", "flip_of_transpose", "view_T_3215x23", "view_3d_permuted", "view_channels_last",
    "view_diagonal", "view_expand_3d_twice", "view_strided_bcast_scalar", "perm2_3x256",
    "perm3_2x8x16_201", "perm4_12x12x2x4_3201_s", "perm3_2x24x32_201_collapsed_s",
    "perm3_2x1152x2048_201_collapsed", "gather_wrap", "gather_two", "gather_2d", "gather_idx2d",
    "gather_middle", "embed_bias_scale", "embed_256x64_1", "gather_flat_next_row", "embedding_bag_sum",
    "reshuffle_mod4", "tile3", "roll5", "sum_permuted", "max_strided_cols", "softmax_strided",
    "channels_last_bf16", "strided_i32", "any_all_strided", "flip_i8", "f16_to_f32_flipped",
    "perm3_2x1152x2048_120_divmod", "slice_step5", "unfold_2d", "pad_2d", "cat_three", "diff_left",
    "sum_empty", "transposed_i64", "sum_f64_transposed", "scatter_out", "lut_u8"})

# kernel -> (stage, fragment of the message): stage "export" fails there (and so at compile),
# "compile" passes export and fails in Mosaic. Empty: every example kernel compiles for both
# chips (what Mosaic cannot express, the wrapper does in XLA: see docs/pallas.md).
REJECTED = {}


def avals(case, sharding=None):
    return [jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=sharding) for a in case.args()]


def pure(mod, kernel, sharding=None):
    return jax.jit(functools.partial(getattr(mod, kernel + "_pure"), interpret=False), out_shardings=sharding)


def mesh(chip):
    """Some lowering rules ask for the chip: pin it (else "Unsupported TPU device kind: cpu")."""
    return AbstractMesh((1,), ("x",), abstract_device=AbstractDevice(device_kind=CHIPS[chip][1], num_cores=1,
                                                                       platform="tpu"))


def expect(kernel, stage, fn):
    bad = REJECTED.get(kernel)
    if bad and (bad[0] == stage or bad[0] == "export"):
        with pytest.raises(Exception, match=re.escape(bad[1])):
            fn()
    else:
        fn()


@pytest.fixture(scope="module")
def devices():
    return {c: topologies.get_topology_desc(t, "tpu").devices[0] for c, (t, _) in CHIPS.items()}


@pytest.mark.parametrize("kernel", KERNELS)
def test_export_tpu(kernel, modules):
    mod, cases = modules.get(TE.CASES[kernel].file)

    def run():
        with use_abstract_mesh(mesh("v5e")):
            exp = jax.export.export(pure(mod, kernel), platforms=("tpu",))(*avals(cases[kernel]))
        # a Mosaic kernel for every pl.pallas_call; a kernel whose every statement runs in XLA
        # (64-bit values, f16 loads, i8 vectors, a scatter: see docs/pallas.md) has none
        calls = inspect.getsource(getattr(mod, kernel + "_pure")).count("pl.pallas_call(")
        assert exp.mlir_module().count("tpu_custom_call") >= calls, (calls, kernel)
        assert calls or "# in XLA: " in inspect.getsource(getattr(mod, kernel + "_pure")) or not any(
            s for s in exp.out_avals if np.prod(s.shape))

    expect(kernel, "export", run)


@pytest.mark.parametrize("chip", sorted(CHIPS))
@pytest.mark.parametrize("kernel", KERNELS if ALL else COMPILED)
def test_mosaic_compile(kernel, chip, modules, devices):
    mod, cases = modules.get(TE.CASES[kernel].file)
    sh = jax.sharding.SingleDeviceSharding(devices[chip])

    def run():
        with use_abstract_mesh(mesh(chip)):
            pure(mod, kernel, sh).trace(*avals(cases[kernel], sh)).lower(lowering_platforms=("tpu",)).compile()

    expect(kernel, "compile", run)
