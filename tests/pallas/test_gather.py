"""Row gathers through scalar prefetch: the index maps themselves, called on prefetched values
(wrap applied, an out-of-range row clamped into the table so the DMA never leaves it), and the
entry point raising IndexError for an out-of-range index (tensor, dim, value and position, as the
reference interpreter words it), in both of JAX's interpreters. Neither interpreter checks block
indices (both wrap or clamp them), so the checks are the kernel's own."""
import os

import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental.pallas import tpu as pltpu

import athene_lib as A

MODES = {"interpret": True, "tpu-interpret": pltpu.InterpretParams()}


@pytest.fixture(scope="module")
def gather(modules):
    return modules.get("gather.ath")


@pytest.fixture(scope="module")
def bad_index(tmp_path_factory):
    """examples/bad_index.ath (gather without wrap, S = 4) emitted on its own."""
    import importlib.util
    ctx = A.load(os.path.join(A.EXAMPLES, "bad_index.ath"))
    k = A.Kernel(ctx, A.LIB.athene_kernel_at(ctx, 0), sizes={"S": 4})
    path = tmp_path_factory.mktemp("bad") / "bad_index.py"
    path.write_text(A.emit([k]))
    spec = importlib.util.spec_from_file_location("bad_index_pallas", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, k


def table_map(mod, kernel):
    spec = getattr(mod, f"_{kernel}_y_grid").in_specs[0]
    return lambda s, *refs: [int(v) for v in spec.index_map(s, *[jnp.asarray(r, jnp.int32) for r in refs])]


def test_index_map_applies_wrap(gather):
    mod, _ = gather
    imap = table_map(mod, "gather_wrap")
    idx = np.array([0, 5, -1, -16, 15, -7, 3, 3, -3, 8, -8, 1])
    for s in range(12):
        assert imap(s, idx) == [idx[s] % 16, 0, 0], s


def test_index_map_keeps_bad_rows_inside_the_table(gather):
    mod, _ = gather
    imap = table_map(mod, "gather_wrap")
    idx = np.array([16, -17, 1000, -1000] + [0] * 8)
    assert [imap(s, idx)[0] for s in range(4)] == [15, 0, 15, 0]
    plain = table_map(mod, "gather_rows")
    assert [plain(s, np.array([-1, 16, 3, 99]))[0] for s in range(4)] == [0, 15, 3, 15]


def test_index_map_of_two_gathers(gather):
    mod, _ = gather
    grid = mod._gather_two_y_grid
    i0, i1 = np.array([3, 31, 0, 7, 1, 2, 3, 4, 5, 6]), np.array([19, 0, 5, 1, 2, 3, 4, 5, 6, 7])
    refs = [jnp.asarray(a, jnp.int32) for a in (i0, i1)]
    for s in range(10):
        rows = [int(spec.index_map(s, *refs)[0]) for spec in grid.in_specs]
        assert rows == [i0[s], i1[s]], s


@pytest.mark.parametrize("mode", sorted(MODES))
def test_negative_indices_through_wrap(gather, mode):
    mod, _ = gather
    rng = np.random.default_rng(1)
    table = rng.standard_normal((16, 8)).astype(np.float32)
    idx = np.array([-16, -1, 0, 15, -5, 5, 2, -2, 7, -9, 1, -15], np.int64)
    got = np.asarray(mod.gather_wrap(table, idx, interpret=MODES[mode]))
    np.testing.assert_array_equal(got, table[idx])


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("bad, at", [(16, 5), (-17, 0), (2**40, 11)])
def test_out_of_range_wrap_index_raises(gather, mode, bad, at):
    mod, _ = gather
    table = np.zeros((16, 8), np.float32)
    idx = np.zeros(12, np.int64)
    idx[at] = bad
    value = bad if -2**31 <= bad < 2**31 else 2**31 - 1  # int32 on the TPU, saturated
    with pytest.raises(IndexError, match=rf"kernel gather_wrap: index {value} out of range for dim 0 of 'table' "
                                         rf"\(size 16; wrap\(\) accepts \[-16, 16\)\) at y\[{at}, 0\]"):
        mod.gather_wrap(table, idx, interpret=MODES[mode])


@pytest.mark.parametrize("mode", sorted(MODES))
def test_bad_index_example_matches_the_reference(bad_index, mode):
    mod, k = bad_index
    table = np.arange(64, dtype=np.float32).reshape(16, 4)
    idx = np.array([0, 1, 2, 20], np.int64)
    ref = k.reference([table.reshape(-1), idx])
    assert isinstance(ref, str) and "index 20 out of range for dim 0 of 'table' (size 16) at out[3, 0]" in ref
    with pytest.raises(IndexError) as e:
        mod.gather(table, idx, interpret=MODES[mode])
    assert str(e.value) in ref, (str(e.value), ref)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_second_gather_names_its_tensor(gather, mode):
    mod, _ = gather
    a, b = np.zeros(32, np.float32), np.zeros(20, np.float32)
    i0, i1 = np.arange(10, dtype=np.int64), np.arange(10, dtype=np.int32)
    i1[7] = 20
    with pytest.raises(IndexError, match=r"index 20 out of range for dim 0 of 'b' \(size 20\) at y\[7\]"):
        mod.gather_two(a, b, i0, i1, interpret=MODES[mode])


def test_2d_gather_and_2d_index_tensor(gather):
    mod, _ = gather
    t = np.zeros((8, 6, 4), np.float32)
    r, c = np.zeros(5, np.int64), np.zeros(5, np.int64)
    c[2] = 6
    with pytest.raises(IndexError, match=r"index 6 out of range for dim 1 of 't' \(size 6\) at y\[2, 0\]"):
        mod.gather_2d(t, r, c, interpret=True)
    table = np.zeros((20, 8), np.float32)
    idx = np.zeros((3, 5), np.int64)
    idx[2, 4] = -1
    with pytest.raises(IndexError, match=r"index -1 out of range for dim 0 of 'table' \(size 20\) at y\[2, 4, 0\]"):
        mod.gather_idx2d(table, idx, interpret=True)


def test_flat_gather_offset_raises(gather):
    mod, _ = gather
    t = np.zeros(64, np.float32)
    idx = np.array([0, 1, 2, 15, 3, 4], np.int64)  # 4*15 + 4 + d is past the 64 elements
    with pytest.raises(IndexError, match=r"flat offset 64 is out of range for the storage of 't' \(64 elements\) "
                                         r"at y\[3, 0\]"):
        mod.gather_flat_next_row(t, idx, interpret=True)


def test_element_gather_index_raises(gather):
    mod, _ = gather
    x = np.zeros((4, 10, 6), np.float32)
    idx = np.zeros((4, 3, 6), np.int64)
    idx[1, 2, 3] = 10
    with pytest.raises(IndexError, match=r"index 10 out of range for dim 1 of 'x' \(size 10\) at y\[1, 2, 3\]"):
        mod.gather_torch_dim1(x, idx, interpret=True)


PICK = """kernel pick(t: f32[64], idx: i32[4, 8]) -> (y: f32[4, 8]) {
    y[i, j] = t.flat[idx[i, j]] * 2.0
}
"""


@pytest.fixture(scope="module")
def pick(tmp_path_factory):
    """A checked element gather: the kernel checks a whole (4, 8) block of indices at once (the
    record's vector path)."""
    import importlib.util
    d = tmp_path_factory.mktemp("pick")
    (d / "pick.ath").write_text(PICK)
    ctx = A.load(str(d / "pick.ath"))
    path = d / "pick_pallas.py"
    path.write_text(A.emit([A.Kernel(ctx, A.LIB.athene_kernel_at(ctx, 0))]))
    spec = importlib.util.spec_from_file_location("pick_pallas", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("mode", sorted(MODES))
def test_vector_record_keeps_the_first_bad_index(pick, mode):
    """Two bad indices in one block: the count is both, the value and position the first's in
    row-major order, whatever their order in value."""
    t = np.arange(64, dtype=np.float32)
    idx = np.arange(32, dtype=np.int32).reshape(4, 8)
    np.testing.assert_array_equal(np.asarray(pick.pick(t, idx, interpret=MODES[mode])), 2 * t[idx])
    idx[2, 0], idx[1, 3] = -1, 70
    with pytest.raises(IndexError, match=r"kernel pick: flat offset 70 is out of range for the storage of 't' "
                                         r"\(64 elements\) at y\[1, 3\]"):
        pick.pick(t, idx, interpret=MODES[mode])
    bad = np.asarray(pick.pick_pure(t, idx, interpret=MODES[mode])[1])
    assert bad[0] == 2 and bad[2] == 70 and list(bad[3:5]) == [1, 3], bad


@pytest.mark.parametrize("x64", [False, True])
def test_vector_record_compiles_for_tpu(pick, x64):
    """Mosaic lowers the vector record (no argmax of bools, no int32 sum to a scalar, which
    JAX's Mosaic lowering widens to int64 under x64)."""
    import jax
    from jax.experimental import topologies
    from jax.sharding import use_abstract_mesh

    import test_tpu as TPU

    dev = topologies.get_topology_desc(TPU.CHIPS["v5e"][0], "tpu").devices[0]
    sh = jax.sharding.SingleDeviceSharding(dev)
    avals = [jax.ShapeDtypeStruct((64,), np.float32, sharding=sh), jax.ShapeDtypeStruct((4, 8), np.int32, sharding=sh)]
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", x64)
    try:
        with use_abstract_mesh(TPU.mesh("v5e")):
            TPU.pure(pick, "pick", sh).trace(*avals).lower(lowering_platforms=("tpu",)).compile()
    finally:
        jax.config.update("jax_enable_x64", old)


GATHER64 = """kernel g64(t: f64[16, 4], idx: i64[5]) -> (y: f64[5, 4]) {
    y[s, d] = t[idx[s], d] * 2.0
}
kernel take64(t: f32[9], idx: i64[4]) -> (y: f32[4]) {
    y[i] = t.flat[idx[i]]
}
"""


@pytest.fixture(scope="module", params=["pallas", "pallas-gpu"])
def gather64(request, tmp_path_factory):
    """Checked gathers in statements that run in XLA (64-bit values): the statement's function
    returns its records beside the output."""
    import importlib.util
    d = tmp_path_factory.mktemp("g64")
    (d / "g64.ath").write_text(GATHER64)
    ctx = A.load(str(d / "g64.ath"))
    ks = [A.Kernel(ctx, A.LIB.athene_kernel_at(ctx, i)) for i in range(2)]
    path = d / f"g64_{request.param.replace('-', '_')}.py"
    path.write_text(A.emit(ks, request.param))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_checked_gather_in_xla(gather64):
    mod = gather64
    assert open(mod.__file__).read().count("# in XLA: the TPU has no 64-bit vectors") >= 2 or \
        "pallas_gpu" in mod.__file__  # the gpu keeps 64-bit values in the kernel
    t = np.arange(64, dtype=np.float64).reshape(16, 4)
    idx = np.array([3, 0, 15, 7, 7])
    np.testing.assert_array_equal(np.asarray(mod.g64(t, idx, interpret=True)), 2 * t[idx])
    idx[3], idx[4] = 16, -1
    with pytest.raises(IndexError, match=r"kernel g64: index 16 out of range for dim 0 of 't' \(size 16\) at y\[3, 0\]"):
        mod.g64(t, idx, interpret=True)
    flat = np.arange(9, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(mod.take64(flat, np.array([8, 0, 4, 4]), interpret=True)), [8, 0, 4, 4])
    with pytest.raises(IndexError, match=r"kernel take64: flat offset 9 is out of range for the storage of 't' "
                                         r"\(9 elements\) at y\[2\]"):
        mod.take64(flat, np.array([8, 0, 9, -3]), interpret=True)
