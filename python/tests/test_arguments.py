"""Bad arguments to the package get an error that names what the caller wrote (the kernel, the
parameter, the argument), of the documented kinds (TypeError, ValueError, MemoryError,
athene.CompileError, athene.RunError), never a silent wrong answer and never a command-line flag
(issue 40)."""

import re

import numpy as np
import pytest

import athene

SRC = """
kernel two(x: f32[N]) -> (y: f32[N], z: f32[N]) {
    y[i] = x[i] + 1.0
    z[i] = x[i] * 2.0
}
kernel declared(x: f32[N]) -> (y: f32[N] strides(2), z: f32[N] strides(2) offset 1) {
    y[i] = x[i] + 1.0
    z[i] = x[i] * 2.0
}
kernel ar() -> (y: i64[M]) {
    y[i] = i
}
kernel same(x: f32[M]) -> (y: f32[M]) {
    y[i] = x[i]
}
kernel mix(a: f32[], b: i32[], c: bool[], h: f16[], u: u8[]) -> (y: f32[]) {
    y[] = a[] + f32(b[]) + f32(c[]) + f32(h[]) + f32(u[])
}
kernel rowsum(x: f32[R, C]) -> (y: f32[R]) {
    y[r] = sum(c: x[r, c])
}
"""

mod = athene.compile(SRC)
FLAG = re.compile(r"--[a-z]")


def no_flag(e):
    assert not FLAG.search(str(e)), str(e)


# ----------------------------------------------------------------------------- 4: sizes


@pytest.mark.parametrize("value", [2**64 + 3, 2**63, -2**63 - 1, 2**100])
def test_sizes_outside_int64_name_the_value(value):
    with pytest.raises(ValueError, match=re.escape(str(value))) as e:
        mod.ar(sizes={"M": value})
    assert "M" in str(e.value)
    no_flag(e.value)
    with pytest.raises(ValueError, match=re.escape(str(value))):
        athene.compile(SRC, sizes={"M": value})


@pytest.mark.parametrize("call", [
    lambda: mod.ar(sizes={"M": -4}),
    lambda: mod.same(np.zeros(3, np.float32), sizes={"M": 4}),
    lambda: mod.ar(),
    lambda: mod.ar.explain(),
])
def test_size_errors_mention_no_command_line_flag(call):
    with pytest.raises(athene.CompileError) as e:
        call()
    assert "M" in str(e.value)
    no_flag(e.value)


def test_size_conflict_says_where_each_value_came_from():
    with pytest.raises(athene.CompileError, match=r"4 from sizes=\{'M': 4\} but 3 from dim 0 of x"):
        mod.same(np.zeros(3, np.float32), sizes={"M": 4})


def test_sizes_in_range_bind():
    assert mod.ar(sizes={"M": np.int64(3)}).tolist() == [0, 1, 2]


# ----------------------------------------------------------------------------- 11: errors with context


@pytest.mark.parametrize("sizes", [5, "M=3", [("M", 3)]])
def test_sizes_must_be_a_mapping(sizes):
    with pytest.raises(TypeError, match="sizes="):
        mod.ar(sizes=sizes)
    with pytest.raises(TypeError, match="sizes="):
        mod.ar.explain(sizes=sizes)
    with pytest.raises(TypeError, match="sizes="):
        athene.compile(SRC, sizes=sizes)


@pytest.mark.parametrize("m", [2**62, 2**40])
def test_an_output_too_big_to_allocate_is_a_memory_error_naming_it(m):
    with pytest.raises(MemoryError, match=r"kernel ar: .*output 'y'") as e:
        mod.ar(sizes={"M": m})
    assert str(m) in str(e.value)


@pytest.mark.parametrize("n,kind", [(2**32 + 3, ValueError), (-1, ValueError), (1025, ValueError),
                                    (2.0, TypeError), ("2", TypeError), (True, TypeError), (None, TypeError)])
def test_set_threads_refuses_what_it_cannot_use(n, kind):
    before = athene.threads()
    with pytest.raises(kind, match="set_threads"):
        athene.set_threads(n)
    assert athene.threads() == before


def test_set_threads_takes_its_range():
    before = athene.threads()
    try:
        athene.set_threads(3)
        assert athene.threads() == 3
        athene.set_threads(np.int64(2))
        assert athene.threads() == 2
        athene.set_threads(0)  # the machine's CPU count
        assert athene.threads() >= 1
    finally:
        athene.set_threads(before)


# ----------------------------------------------------------------------------- 5: conversions


def test_none_for_an_input_is_a_missing_input():
    for call in (lambda: mod.mix(None, 1, True, 1.0, 2), lambda: mod.mix(a=None, b=1, c=True, h=1.0, u=2)):
        with pytest.raises(TypeError, match=r"kernel mix: missing input\(s\) a"):
            call()
    with pytest.raises(TypeError, match=r"kernel same: missing input\(s\) x"):
        mod.same(None, sizes={"M": 3})


@pytest.mark.parametrize("args,param", [
    ((1.0, 1.5, True, 1.0, 2), "b"),          # a float for an integer: truncated
    ((1.0, 2**40, True, 1.0, 2), "b"),        # out of i32
    ((1.0, 1, True, 1.0, 300), "u"),          # out of u8
    ((1.0, 1, True, 1.0, -1), "u"),
    ((1.0, 1, 2, 1.0, 2), "c"),               # 2 is not a bool
    ((1.0, float("nan"), True, 1.0, 2), "b"),
    ((1.0, 1, True, 1e6, 2), "h"),            # overflows f16 to inf
    (("7", 1, True, 1.0, 2), "a"),            # strings are not parsed
    ((1.0, b"1", True, 1.0, 2), "b"),
    ((1.0, "abc", True, 1.0, 2), "b"),
    ((1j, 1, True, 1.0, 2), "a"),
    ((1.0, [1, 2], True, 1.0, 2), "b"),       # a list for a scalar: a shape error, named
    ((object(), 1, True, 1.0, 2), "a"),
    ((1.0, 2**70, True, 1.0, 2), "b"),
])
def test_lossy_or_odd_conversions_are_type_errors_naming_the_parameter(args, param):
    with pytest.raises((TypeError, ValueError), match=f"kernel mix: .*'{param}'"):
        mod.mix(*args)


def test_exact_conversions_are_taken():
    got = mod.mix(0.5, 2.0, True, 1.5, 3)  # 2.0 is exactly an i32, 0.5 and 1.5 exact in f32 and f16
    assert got == np.float32(0.5 + 2 + 1 + 1.5 + 3)
    assert mod.mix(0.1, -4, False, 0.1, 255) == np.float32(0.1) + np.float32(-4) + np.float32(np.float16(0.1)) + 255
    np.testing.assert_array_equal(mod.same([1, 2.5, 3], sizes={"M": 3}), np.float32([1, 2.5, 3]))
    np.testing.assert_array_equal(mod.rowsum([[1, 2], [3, 4]]), np.float32([3, 7]))


# ----------------------------------------------------------------------------- 6: NUL bytes

TWO_KERNELS = ("kernel a(x: f32[4]) -> (y: f32[4]) {\n    y[i] = x[i]\n}\n"
               "kernel b(x: f32[4]) -> (y: f32[4]) {\n  \0  y[i] = x[i]\n}\n")


def test_nul_byte_in_a_source_is_a_located_error():
    """The command line's words: a NUL byte at its line and column (bytes, from 1); no kernel
    vanishes behind it."""
    with pytest.raises(athene.CompileError, match=r"^<string>:5:3: error: a NUL byte; kernel files are text") as e:
        athene.compile(TWO_KERNELS, filename="<string>")
    assert (e.value.line, e.value.col) == (5, 3)
    with pytest.raises(athene.CompileError, match=r"k\.ath:1:1: error: a NUL byte"):
        athene.compile("\0", filename="k.ath")


def test_nul_byte_in_a_loaded_file(tmp_path):
    f = tmp_path / "k.ath"
    f.write_bytes(TWO_KERNELS.encode())
    with pytest.raises(athene.CompileError, match=r"k\.ath:5:3: error: a NUL byte"):
        athene.load(str(f))


@pytest.mark.parametrize("call,arg", [
    (lambda: athene.compile(SRC, filename="f\0g"), "filename"),
    (lambda: mod.same.explain(np.zeros(3, np.float32), target="cpu\0zz"), "target"),
    (lambda: mod.same.plan(np.zeros(3, np.float32), target="tpu\0"), "target"),
    (lambda: mod.same.dump("body\0x", np.zeros(3, np.float32)), "pass_name"),
    (lambda: mod.same.pallas(np.zeros(3, np.float32), chip="v5e\0"), "chip"),
    (lambda: mod.same.pallas(np.zeros(3, np.float32), target="pallas\0gpu"), "target"),
])
def test_nul_byte_in_a_name_argument_is_a_value_error(call, arg):
    with pytest.raises(ValueError, match=f"{arg}.*NUL byte"):
        call()


@pytest.mark.parametrize("call,arg", [
    (lambda: mod.same.explain(np.zeros(3, np.float32), target=3), "target"),
    (lambda: mod.same.dump(None, np.zeros(3, np.float32)), "pass_name"),
    (lambda: athene.compile(SRC, filename=7), "filename"),
])
def test_name_arguments_must_be_str(call, arg):
    with pytest.raises(TypeError, match=arg):
        call()


# ----------------------------------------------------------------------------- 3: aliased outputs

X4 = np.arange(4, dtype=np.float32)


@pytest.mark.parametrize("make", [
    lambda buf: (buf[:4], buf[:4]),                 # the same memory
    lambda buf: (buf[:4], buf[2:6]),                # overlapping
    lambda buf: (buf[:4], buf[3::-1]),              # the same, reversed
    lambda buf: (buf[0:8:2], buf[0:4]),             # strided, some elements shared
])
def test_out_arrays_that_share_memory_are_refused(make):
    buf = np.full(8, -7, np.float32)
    y, z = make(buf)
    with pytest.raises(ValueError, match=r"kernel two: the out= arrays for 'y' and 'z' share memory"):
        mod.two(X4, out=(y, z))
    assert (buf == -7).all()  # nothing written


def test_out_arrays_interleaved_without_sharing_are_fine():
    buf = np.full(8, -7, np.float32)
    y, z = mod.two(X4, out=(buf[0::2], buf[1::2]))
    np.testing.assert_array_equal(buf[0::2], X4 + 1)
    np.testing.assert_array_equal(buf[1::2], X4 * 2)


def test_declared_out_storage_shared_only_where_elements_are():
    """Outputs that declare their layouts (strides(2), and strides(2) offset 1) may share one
    storage array when their elements do not meet; where they do, it is refused."""
    st = np.full(10, -7, np.float32)
    mod.declared(X4, out=(st, st))
    np.testing.assert_array_equal(st[0:8:2], X4 + 1)
    np.testing.assert_array_equal(st[1:9:2], X4 * 2)
    st = np.full(10, -7, np.float32)
    with pytest.raises(ValueError, match="kernel declared: the out= arrays for 'y' and 'z' share memory"):
        mod.declared(X4, out=(st, st[1:]))
    assert (st == -7).all()


# ----------------------------------------------------------------------------- 7: misaligned arrays


def misaligned(values, dtype):
    """values as an array of dtype whose data pointer is 1 byte off the dtype's alignment."""
    dtype = np.dtype(dtype)
    values = np.asarray(values).astype(dtype)
    raw = np.zeros(values.nbytes + dtype.itemsize + 1, np.uint8)
    at = (-raw.ctypes.data) % dtype.itemsize + 1
    a = raw[at:at + values.nbytes].view(dtype).reshape(values.shape)
    a[...] = values
    assert not a.flags.aligned and a.ctypes.data % dtype.itemsize
    return a


MIS = athene.compile("""
kernel rows(x: f32[R, C]) -> (y: f32[R]) {
    y[r] = sum(c: x[r, c])
}
kernel wide(x: f64[N], k: i64[N]) -> (y: f64[N], z: i64[N]) {
    y[i] = x[i] * 2.0
    z[i] = k[i] + 1
}
kernel st(x: f32[4] strides(2) offset 1) -> (y: f32[4] strides(2)) {
    y[i] = x[i] + 1.0
}
""")


def test_misaligned_inputs_are_read_through_an_aligned_copy():
    x = misaligned(np.arange(64 * 48).reshape(64, 48) / 7, np.float32)
    np.testing.assert_allclose(MIS.rows(x), x.sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(MIS.rows(x[::2, 1::3]), x[::2, 1::3].sum(axis=1), rtol=1e-5)
    assert all(p % 4 == 0 for p in MIS.rows.storage_pointers(x)[:1])
    xs, ks = misaligned(np.linspace(-3, 3, 33), np.float64), misaligned(np.arange(33) - 5, np.int64)
    y, z = MIS.wide(xs, ks)
    np.testing.assert_array_equal(y, xs * 2)
    np.testing.assert_array_equal(z, ks + 1)
    storage = misaligned(np.arange(9), np.float32)
    np.testing.assert_array_equal(MIS.st(storage), storage[1::2] + 1)


def test_misaligned_out_is_written_through_a_temporary():
    xs, ks = np.linspace(-3, 3, 33), np.arange(33) - 5
    y, z = misaligned(np.zeros(33), np.float64), misaligned(np.zeros(33), np.int64)
    ry, rz = MIS.wide(xs, ks, out=(y, z))
    assert ry is y and rz is z
    np.testing.assert_array_equal(y, xs * 2)
    np.testing.assert_array_equal(z, ks + 1)
    y2 = misaligned(np.zeros((4, 17)), np.float64)[:, ::2]  # strided as well
    MIS.wide(xs[:9], ks[:9], out=(y2[0], None))
    np.testing.assert_array_equal(y2[0], xs[:9] * 2)
    storage = misaligned(np.zeros(8), np.float32)
    MIS.st(np.arange(9, dtype=np.float32), out=storage)
    np.testing.assert_array_equal(storage[0::2], np.arange(9, dtype=np.float32)[1::2] + 1)
