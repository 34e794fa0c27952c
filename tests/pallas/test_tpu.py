"""Every example kernel's traceable K_pure through the TPU toolchain on this CPU-only machine:
jax.export for platform "tpu" (Pallas's TPU block rules, with a chip pinned by an abstract
mesh), and the real Mosaic compiler through libtpu's compile-only devices for v5e and v6e.

What the TPU compiler rejects is listed in REJECTED with a fragment of its message (and in
docs/pallas.md): a kernel there must still fail with it, every other kernel must compile.

Every kernel is exported. The Mosaic compile takes 0.1-9 s a kernel and chip, about ten minutes
for all of them here, so by default it runs for COMPILED (the scaled-down twins and small kernels
of every example file, and one full-size kernel); ATHENE_PALLAS_ALL_TPU=1 compiles every one."""
import functools
import os
import re

import jax
import numpy as np
import pytest
from jax.experimental import topologies
from jax.sharding import AbstractDevice, AbstractMesh, use_abstract_mesh

import test_examples as TE

KERNELS = sorted(TE.CASES)
ALL = os.environ.get("ATHENE_PALLAS_ALL_TPU", "") not in ("", "0")
CHIPS = {"v5e": ("v5e:2x2", "TPU v5 lite"), "v6e": ("v6e:2x2", "TPU v6 lite")}

# The Mosaic compile by default: small kernels of every example file covering CASES.md A and B
# (strided, views, permutations in both forms, gathers, reshuffles, reductions, dtypes), one
# full-size permutation, and two kernels the compiler rejects.
COMPILED = sorted({
    "slice_5_step2", "slice_chain", "rope_interleaved", "rope_halves", "slice_step3", "slice_2_14_5",
    "flip_1d", "flip_of_transpose", "view_T_3215x23", "view_3d_permuted", "view_channels_last",
    "view_diagonal", "view_expand_3d_twice", "view_strided_bcast_scalar", "perm2_3x256",
    "perm3_2x8x16_201", "perm4_12x12x2x4_3201_s", "perm3_2x24x32_201_collapsed_s",
    "perm3_2x1152x2048_201_collapsed", "gather_wrap", "gather_two", "gather_2d", "gather_idx2d",
    "gather_middle", "embed_bias_scale", "embed_256x64_1", "gather_flat_next_row", "embedding_bag_sum",
    "reshuffle_mod4", "tile3", "roll5", "sum_permuted", "max_strided_cols", "softmax_strided",
    "channels_last_bf16", "strided_i32", "any_all_strided", "flip_i8", "f16_to_f32_flipped"})

# kernel -> (stage, fragment of the message): stage "export" fails there (and so at compile),
# "compile" passes export and fails in Mosaic.
REJECTED = {
    'argmax_strided': ('export', 'Only index_dtype=int32 is supported'),
    'argmin_permuted': ('export', 'Only index_dtype=int32 is supported'),
    'cat_cols': ('export', 'Only take_along_axis-like gathers supported'),
    'cat_rows_flat': ('export', 'Only take_along_axis-like gathers supported'),
    'cat_three': ('export', 'Unsupported gather'),
    'clamp_shift': ('export', 'Only take_along_axis-like gathers supported'),
    'count_true': ('export', '64-bit types are not supported'),
    'diff_left': ('export', 'Only take_along_axis-like gathers supported'),
    'f16_to_f32_flipped': ('compile', 'INTERNAL: Mosaic failed to compile TPU kernel: Invalid vector type for load'),
    'f64_to_i32_transposed': ('compile', 'UNIMPLEMENTED: While rewriting computation to not contain X{64|128} element types,'),
    'flip_i8': ('compile', 'INTERNAL: Mosaic failed to compile TPU kernel: Not implemented: Only vector<i16> and vecto'),
    'floordiv_negative': ('compile', 'INTERNAL: Mosaic failed to compile TPU kernel: infer-vector-layout: unsupported shape cast'),
    'floordiv_negative_divisor': ('export', 'Unsupported gather'),
    'fused_chain': ('export', '64-bit types are not supported'),
    'fused_weak': ('export', '64-bit types are not supported'),
    'gather_clamped': ('export', '64-bit types are not supported'),
    'im2col_3x3': ('export', 'Only take_along_axis-like gathers supported'),
    'iota_i64': ('export', '64-bit types are not supported'),
    'lut_u8': ('export', 'Only arrays with 32-bit element types can be converted to scalars, but got: uint8'),
    'mod_negative_divisor': ('export', 'Unsupported gather'),
    'pad_2d': ('export', 'Only take_along_axis-like gathers supported'),
    'pad_cols': ('export', 'Only take_along_axis-like gathers supported'),
    'pad_cols_flat': ('export', 'Only take_along_axis-like gathers supported'),
    'perm3_2x1152x2048_120_divmod': ('export', 'requires that rank 1 block shapes'),
    'perm3_2x24x32_120_divmod_s': ('compile', 'INTERNAL: Mosaic failed to compile TPU kernel: infer-vector-layout: unsupported shape cast'),
    'permute_f16': ('compile', 'INTERNAL: Mosaic failed to compile TPU kernel: Invalid vector type for load'),
    'prod_strided_f64': ('export', 'Unimplemented primitive in Pallas TPU lowering for tc: reduce_prod'),
    'repeat_interleave3': ('compile', 'INTERNAL: Mosaic failed to compile TPU kernel: infer-vector-layout: unsupported shape cast'),
    'reshuffle_mod4': ('compile', 'INTERNAL: Mosaic failed to compile TPU kernel: infer-vector-layout: unsupported shape cast'),
    'roll5': ('export', 'Unsupported gather'),
    'roll_sym': ('export', 'Unsupported gather'),
    'scatter_out': ('export', 'Unimplemented primitive in Pallas TPU lowering for tc: scatter'),
    'slice_23_step24_flat': ('export', "'vector.extract_strided_slice' op expected strides to be confined to [1, 2)"),
    'slice_rev_steps': ('export', "'vector.extract_strided_slice' op expected strides to be confined to [1, 2)"),
    'slice_step5': ('export', "'vector.extract_strided_slice' op expected strides to be confined to [1, 2)"),
    'slice_step5_flat': ('export', "'vector.extract_strided_slice' op expected strides to be confined to [1, 2)"),
    'slice_sym': ('export', "'vector.extract_strided_slice' op expected strides to be confined to [1, 2)"),
    'sum_empty': ('export', 'vector types must have positive constant sizes'),
    'sum_f64_transposed': ('compile', 'UNIMPLEMENTED: While rewriting computation to not contain X{64|128} element types,'),
    'tile3': ('compile', 'INTERNAL: Mosaic failed to compile TPU kernel: infer-vector-layout: unsupported shape cast'),
    'transposed_i64': ('compile', 'UNIMPLEMENTED: While rewriting computation to not contain X{64|128} element types,'),
    'unfold_1d': ('export', 'Only take_along_axis-like gathers supported'),
    'unfold_2d': ('export', 'Only take_along_axis-like gathers supported'),
    'unfold_sym': ('export', 'Only take_along_axis-like gathers supported'),
    'view_step2_f64': ('compile', 'UNIMPLEMENTED: While rewriting computation to not contain X{64|128} element types,'),
    'window_sum_padded': ('export', 'Only take_along_axis-like gathers supported'),
}


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
        assert "tpu_custom_call" in exp.mlir_module() or not any(
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
