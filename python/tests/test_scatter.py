"""Scatters through the package, against NumPy: an output updated in place (out= gives its
values, a fresh one starts from zeros), = and +=, duplicates, wrap(), .flat, an out-of-range
index that raises and writes nothing, and out= that shares memory with an input."""

import numpy as np
import pytest

import athene

SRC = """
kernel put(idx: i64[S], v: f32[S]) -> (y: f32[N]) {
    y[s < S: wrap(idx[s], N)] = v[s]
}
kernel add_rows(idx: i64[S], v: f32[S, D]) -> (y: f32[N, D]) {
    y[s < S, d < D: idx[s], d] += v[s, d]
}
kernel add_flat(idx: i64[S], v: f64[S]) -> (y: f64[N]) {
    y.flat[s < S: idx[s]] += v[s]
}
kernel count(idx: i32[S]) -> (y: i64[N]) {
    y[s < S: idx[s]] += 1
}
kernel shift_into(x: f32[N], idx: i64[S]) -> (y: f32[N]) {
    y[s < S: idx[s]] += x[idx[s]]
}
kernel halves(idx: i64[S], v: f32[S]) -> (y: f16[N]) {
    y[s < S: idx[s]] += v[s]
}
"""


@pytest.fixture(scope="module")
def mod():
    return athene.compile(SRC, filename="scatter.ath")


def test_put_keeps_other_elements_and_wraps(mod):
    rng = np.random.default_rng(1)
    y = rng.standard_normal(10).astype(np.float32)
    idx = np.array([1, -1, 4, -6, 7])
    v = rng.standard_normal(5).astype(np.float32)
    want = y.copy()
    want[idx] = v  # distinct elements: NumPy's y[idx] = v
    got = mod["put"](idx, v, out=y)
    assert got is y
    np.testing.assert_array_equal(y, want)


def test_put_duplicates_keep_one_written_value(mod):
    y = np.zeros(4, np.float32)
    mod["put"](np.array([2, 2, 2]), np.array([1.0, 2.0, 3.0], np.float32), out=y)
    assert y[2] in (1.0, 2.0, 3.0) and y[[0, 1, 3]].tolist() == [0, 0, 0]
    assert y[2] == 3.0  # athene: the last point in row-major order


def test_accumulate_rows_with_duplicates(mod):
    rng = np.random.default_rng(2)
    idx = rng.integers(0, 6, 40)
    v = rng.standard_normal((40, 3)).astype(np.float32)
    y = rng.standard_normal((6, 3)).astype(np.float32)
    want = y.astype(np.float64)
    np.add.at(want, idx, v)
    mod["add_rows"](idx, v, out=y)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_fresh_output_starts_from_zeros(mod):
    idx = np.array([0, 3, 3, 1], np.int32)
    got = mod["count"](idx, sizes={"N": 5})
    np.testing.assert_array_equal(got, np.bincount(idx, minlength=5))


def test_flat_accumulate_f64_exact_order(mod):
    idx = np.array([0, 1, 0, 0])
    v = np.array([1e16, 1.0, 1.0, -1e16])
    y = np.zeros(2)
    mod["add_flat"](idx, v, out=y)
    # in point order: ((1e16 + 1) + 1) - 1e16 in f64, as the reference interpreter adds
    assert y.tolist() == [((1e16 + 1.0) + 1.0) - 1e16, 1.0]


def test_accumulate_in_the_output_dtype(mod):
    y = np.full(2, 2048, np.float16)
    mod["halves"](np.array([0, 0, 1]), np.array([1.0, 1.0, 3.0], np.float32), out=y)
    assert y.tolist() == [2048.0, 2052.0]  # f16: 2048 + 1 rounds back to 2048, each time


def test_out_of_range_raises_and_writes_nothing(mod):
    y = np.arange(6, dtype=np.float32).reshape(3, 2)
    before = y.copy()
    with pytest.raises(athene.RunError, match=r"kernel add_rows: index 3 out of range for dim 0 of 'y' \(size 3\) "
                                              r"at y\[s=2, d=0\]"):
        mod["add_rows"](np.array([0, 1, 3, 2]), np.ones((4, 2), np.float32), out=y)
    np.testing.assert_array_equal(y, before)
    with pytest.raises(athene.RunError, match=r"wrap\(\) accepts \[-3, 3\)"):
        mod["put"](np.array([0, -4]), np.ones(2, np.float32), out=np.zeros(3, np.float32))
    with pytest.raises(athene.RunError, match=r"flat offset -1 .* out of range for the storage of 'y'"):
        mod["add_flat"](np.array([0, -1]), np.ones(2), out=np.zeros(2))


def test_out_shared_with_an_input_reads_the_values_before(mod):
    x = np.arange(8, dtype=np.float32)
    idx = np.array([1, 1, 5, 7])
    want = x.copy()
    np.add.at(want, idx, x[idx])
    mod["shift_into"](x, idx, out=x)  # staged through a temporary that starts from x
    np.testing.assert_array_equal(x, want)


def test_explain_says_the_store_is_a_scatter(mod):
    text = mod["add_rows"].explain(sizes={"S": 4, "N": 3, "D": 2})
    assert "scatter, updated in place (+=)" in text
    assert "each point writes its element (no view)" in text
