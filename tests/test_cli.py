"""The command line's promises about files, integers and huge sizes (issue 8).

- outputs are all or nothing: when one `--out` cannot be written, no output file appears and
  files already at the other paths are untouched;
- `--out` writes through a symbolic link (the link stays, its target gets the array), straight
  into a FIFO or a character device (they stay what they are), and refuses a directory;
- integer options are parsed strictly: an optional '-' and digits, nothing else;
- the reproducers of issue 8 that must give the right result (exit 0): sizes near the 64-bit
  limits, big outputs under a memory limit, special files as inputs.

The binary is $ATHENE or <repo>/build/athene. The character-device test writes into a
pseudo-terminal of its own; it never touches the system's /dev/null.
"""

import json as jsonlib
import os
import re
import resource
import stat
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
ATHENE = os.environ.get("ATHENE", str(REPO / "build" / "athene"))
TIMEOUT = 60
INT64_MAX = 2**63 - 1

TWO_OUTPUTS = """
kernel two(x: f32[4]) -> (y: f32[4], z: f32[4]) {
    y[i] = x[i] + 1.0
    z[i] = x[i] * 2.0
}
"""


def athene(*args, timeout=TIMEOUT, preexec_fn=None, env=None):
    return subprocess.run([ATHENE, *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, preexec_fn=preexec_fn, env=env)


def no_crash(r):
    assert r.returncode in (0, 1, 2), r.stderr
    assert "internal" not in r.stderr and "Sanitizer" not in r.stderr, r.stderr


@pytest.fixture
def two(tmp_path):
    """The two-output kernel, its input and the values it must produce."""
    src = tmp_path / "two.ath"
    src.write_text(TWO_OUTPUTS)
    x = np.array([1, -2, 3.5, 0], dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    return src, tmp_path / "x.npy", x + 1, x * 2


# ----------------------------------------------------------------------------- all or nothing


def test_outputs_all_or_nothing_missing_dir(two, tmp_path):
    src, xin, _, _ = two
    y = tmp_path / "y.npy"
    r = athene("run", src, "--in", f"x={xin}", "--out", f"y={y}", "--out", f"z={tmp_path / 'nodir' / 'z.npy'}")
    assert r.returncode == 1, r.stderr
    assert "nodir" in r.stderr and "no output was written" in r.stderr
    assert not y.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["two.ath", "x.npy"]  # no temporaries left


def test_outputs_all_or_nothing_keeps_old_files(two, tmp_path):
    src, xin, _, _ = two
    y = tmp_path / "y.npy"
    y.write_bytes(b"old contents")
    zdir = tmp_path / "zdir"
    zdir.mkdir()
    r = athene("run", src, "--in", f"x={xin}", "--out", f"y={y}", "--out", f"z={zdir}")
    assert r.returncode == 1, r.stderr
    assert "is a directory" in r.stderr
    assert y.read_bytes() == b"old contents"
    assert zdir.is_dir() and not any(zdir.iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["two.ath", "x.npy", "y.npy", "zdir"]


def test_outputs_all_written(two, tmp_path):
    src, xin, want_y, want_z = two
    r = athene("run", src, "--in", f"x={xin}", "--out", f"y={tmp_path / 'y.npy'}", "--out",
               f"z={tmp_path / 'z.npy'}")
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), want_y)
    np.testing.assert_array_equal(np.load(tmp_path / "z.npy"), want_z)


def test_out_same_file_twice_is_an_error(two, tmp_path):
    src, xin, _, _ = two
    out = tmp_path / "o.npy"
    r = athene("run", src, "--in", f"x={xin}", "--out", f"y={out}", "--out", f"z={out}")
    assert r.returncode == 2 and "one file to both y and z" in r.stderr
    assert not out.exists()
    out.write_bytes(b"keep")
    (tmp_path / "alias.npy").symlink_to(out)
    r = athene("run", src, "--in", f"x={xin}", "--out", f"y={out}", "--out", f"z={tmp_path / 'alias.npy'}")
    assert r.returncode == 2, r.stderr
    assert out.read_bytes() == b"keep"


# ----------------------------------------------------------------------------- special files


def test_out_through_symlink(two, tmp_path):
    src, xin, want_y, _ = two
    target = tmp_path / "real.npy"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    link = tmp_path / "link.npy"
    link.symlink_to("real.npy")
    r = athene("run", src, "--in", f"x={xin}", "--out", f"y={link}")
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == "real.npy"
    np.testing.assert_array_equal(np.load(target), want_y)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_out_through_dangling_symlink(two, tmp_path):
    src, xin, want_y, _ = two
    link = tmp_path / "link.npy"
    link.symlink_to("made.npy")
    r = athene("run", src, "--in", f"x={xin}", "--out", f"y={link}")
    assert r.returncode == 0, r.stderr
    assert link.is_symlink()
    np.testing.assert_array_equal(np.load(tmp_path / "made.npy"), want_y)


def test_out_into_fifo(two, tmp_path):
    src, xin, want_y, _ = two
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = {}

    def reader():
        with open(fifo, "rb") as f:
            got["bytes"] = f.read()

    t = threading.Thread(target=reader)
    t.start()
    r = athene("run", src, "--in", f"x={xin}", "--out", f"y={fifo}")
    t.join(TIMEOUT)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    out = tmp_path / "from_fifo.npy"
    out.write_bytes(got["bytes"])
    np.testing.assert_array_equal(np.load(out), want_y)


def test_out_into_char_device(two, tmp_path):
    """--out into a terminal: a character device of the test's own (a pseudo-terminal in raw mode,
    so the bytes pass unchanged), never the system's /dev/null, which a regression that replaced
    the --out target would replace. The device stays a device and gets the whole .npy."""
    import pty
    import tty

    src, xin, want_y, _ = two
    master, slave = pty.openpty()
    try:
        tty.setraw(slave)
        dev = os.ttyname(slave)
        r = athene("run", src, "--in", f"x={xin}", "--out", f"y={dev}")
        assert r.returncode == 0, r.stderr
        assert stat.S_ISCHR(os.stat(dev).st_mode)
        os.set_blocking(master, False)
        data = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            data += chunk
    finally:
        os.close(slave)
        os.close(master)
    out = tmp_path / "from_tty.npy"
    out.write_bytes(data)
    np.testing.assert_array_equal(np.load(out), want_y)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["from_tty.npy", "two.ath", "x.npy"]


def test_out_refuses_socket(two, tmp_path):
    import socket

    src, xin, _, _ = two
    path = tmp_path / "sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    try:
        r = athene("run", src, "--in", f"x={xin}", "--out", f"y={path}")
    finally:
        s.close()
    assert r.returncode == 1 and "refusing to replace it" in r.stderr
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_fifo_as_kernel_file_does_not_hang(tmp_path):
    fifo = tmp_path / "k.ath"
    os.mkfifo(fifo)
    for cmd in ("check", "explain", "run"):
        r = athene(cmd, fifo, timeout=20)
        assert r.returncode == 1 and "not a regular file" in r.stderr


def test_fifo_as_input_does_not_hang(two, tmp_path):
    src, _, _, _ = two
    fifo = tmp_path / "pipe.npy"
    os.mkfifo(fifo)
    r = athene("run", src, "--in", f"x={fifo}", timeout=20)
    assert r.returncode == 1 and "not a regular file" in r.stderr


# ----------------------------------------------------------------------------- strict integers


@pytest.mark.parametrize("flag,value", [
    ("--seed", ""), ("--seed", " 1"), ("--seed", "1 "), ("--seed", "+5"), ("--seed", "-1"),
    ("--seed", "0x10"), ("--seed", "1e3"), ("--seed", "9223372036854775808"),
    ("--size", "N="), ("--size", "N= 4"), ("--size", "N=4 "), ("--size", "N=+4"), ("--size", "N=4.0"),
    ("--size", "N=9223372036854775808"), ("--threads", " 2"), ("--threads", "0"), ("--threads", "+2"),
    ("--repeat", "0"),
])
def test_integers_are_strict(tmp_path, flag, value):
    src = tmp_path / "k.ath"
    src.write_text("kernel k() -> (y: f32[N]) { y[i] = f32(i) }\n")
    extra = ["--bench"] if flag == "--repeat" else []
    r = athene("run", src, "--size", "N=3", *extra, flag, value) if flag != "--size" else athene("run", src, flag, value)
    assert r.returncode == 2, (flag, value, r.stdout, r.stderr)
    assert flag in r.stderr


@pytest.mark.parametrize("args", [
    ["--seed", "7"], ["--seed", "9223372036854775807"], ["--threads", "2"], ["--bench", "--repeat", "2"],
])
def test_integers_accepted(tmp_path, args):
    src = tmp_path / "k.ath"
    src.write_text("kernel k() -> (y: f32[N]) { y[i] = f32(i) }\n")
    r = athene("run", src, "--size", "N=3", *args)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("value", ["foo", "0", "-1", "1025", " 2", "2 ", "+2", "0x2"])
def test_threads_env_is_strict(tmp_path, value):
    src = tmp_path / "k.ath"
    src.write_text("kernel k() -> (y: f32[N]) { y[i] = f32(i) }\n")
    out = tmp_path / "y.npy"
    r = athene("run", src, "--size", "N=3", "--out", f"y={out}", env=dict(os.environ, ATHENE_THREADS=value))
    assert r.returncode == 2, (value, r.stdout, r.stderr)
    assert f"ATHENE_THREADS takes an integer from 1 to 1024, not '{value}'" in r.stderr
    assert not out.exists()


@pytest.mark.parametrize("value,extra", [("", []), ("3", []), ("foo", ["--threads", "2"])])
def test_threads_env_accepted(tmp_path, value, extra):
    """An empty ATHENE_THREADS is none; --threads overrides it."""
    src = tmp_path / "k.ath"
    src.write_text("kernel k() -> (y: f32[N]) { y[i] = f32(i) }\n")
    out = tmp_path / "y.npy"
    r = athene("run", src, "--size", "N=3", "--out", f"y={out}", *extra, env=dict(os.environ, ATHENE_THREADS=value))
    assert r.returncode == 0, r.stderr
    assert np.array_equal(np.load(out), np.arange(3, dtype=np.float32))


def test_negative_size_is_located(tmp_path):
    src = tmp_path / "k.ath"
    src.write_text("kernel k() -> (y: f32[N]) { y[i] = f32(i) }\n")
    r = athene("run", src, "--size", "N=-3")
    assert r.returncode == 1 and re.search(r"k\.ath:1:\d+: error: size N cannot be negative", r.stderr)


# ----------------------------------------------------------------------------- --check, --bench


def test_check_compares_every_output(two, tmp_path):
    src, xin, _, _ = two
    r = athene("run", src, "--in", f"x={xin}", "--check")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [l.split()[2] for l in lines] == ["y", "z"]
    assert all(re.fullmatch(r"two: check [yz] max_diff=\S+( at \S+)? ok", l) for l in lines), lines


def test_bench_line(two, tmp_path):
    src, xin, _, _ = two
    for backend in ([], ["--reference"]):
        r = athene("run", src, "--in", f"x={xin}", "--bench", "--repeat", "3", *backend)
        assert r.returncode == 0, r.stderr
        (line,) = r.stdout.splitlines()
        m = re.fullmatch(r"two: bench (native|reference) repeat=3 time_s=(\S+) gbps=(\S+)", line)
        assert m and float(m.group(2)) >= 0 and float(m.group(3)) >= 0, line
        assert m.group(1) == ("reference" if backend else "native")


@pytest.mark.parametrize("file", sorted(p.name for p in (REPO / "bench").glob("*.ath")))
def test_bench_files_plan(file):
    """The benchmark's kernel files (too big to run here) compile and get a cpu plan, kernel by
    kernel."""
    path = REPO / "bench" / file
    names = re.findall(r"^kernel (\w+)", path.read_text(), re.M)
    r = athene("explain", path)
    assert r.returncode == 0, r.stderr
    assert names and re.findall(r"^kernel (\w+)  \(target cpu\)", r.stdout, re.M) == names
    assert r.stdout.count("    plan  grid") == len(names), r.stdout


@pytest.mark.parametrize("args", [["--check", "--reference"], ["--bench", "--check"], ["--repeat", "2"],
                                  ["--bench", "--out", "y=y.npy"]])
def test_run_mode_conflicts(two, args):
    src, xin, _, _ = two
    r = athene("run", src, "--in", f"x={xin}", *args)
    assert r.returncode == 2, r.stderr


# ----------------------------------------------------------------------------- issue 8 reproducers


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (500_000_000, 500_000_000))


def test_big_output_under_memory_limit(tmp_path):
    """Item 2: a 300 MB output fits a 500 MB address space (no copy of a row-major output);
    one that cannot be allocated is a clean error naming it."""
    src = tmp_path / "k.ath"
    src.write_text("kernel k() -> (y: u8[N]) { y[i] = 1 }\n")
    r = athene("run", src, "--size", "N=300000000", "--reference", preexec_fn=limit_memory)
    assert r.returncode == 0, r.stderr
    assert "sum=300000000 " in r.stdout
    r = athene("run", src, "--size", "N=3000000000", "--reference", preexec_fn=limit_memory)
    assert r.returncode == 1 and "cannot allocate 3000000000 bytes for output 'y'" in r.stderr


def test_big_strided_output_under_memory_limit(tmp_path):
    src = tmp_path / "k.ath"
    src.write_text("kernel k() -> (y: u8[N] strides(2)) { y[i] = 1 }\n")
    r = athene("run", src, "--size", "N=200000000", "--reference", preexec_fn=limit_memory)
    no_crash(r)
    assert r.returncode == 1 and "cannot allocate" in r.stderr and "'y'" in r.stderr


@pytest.mark.parametrize("kernel", [
    "kernel k(x: f32[N] strides(0), idx: i64[S]) -> (y: f32[S]) { y[s] = x[wrap(idx[s], N)] }",
    "kernel k(x: f32[N] strides(0), idx: i64[S]) -> (y: f32[S]) { y[s] = x[idx[s]] }",
])
def test_random_indices_near_int64_max(tmp_path, kernel):
    """Item 6: generating valid random indices for a dim of INT64_MAX."""
    src = tmp_path / "k.ath"
    src.write_text(kernel + "\n")
    r = athene("run", src, "--size", f"N={INT64_MAX}", "--size", "S=4", "--reference")
    assert r.returncode == 0, r.stderr


def test_explain_reduction_of_huge_size(tmp_path):
    """Item 7: the plan checker is bounded whatever the sizes."""
    src = tmp_path / "k.ath"
    src.write_text("kernel k(x: f32[N]) -> (y: f32[]) { y = max(i: x[i]) }\n")
    for target in ("cpu", "tpu"):
        r = athene("explain", src, "--size", "N=4611686018427387904", "--target", target)
        assert r.returncode == 0, r.stderr


def test_nested_calls_parse(tmp_path):
    """Item 8: deeply nested calls and reductions parse (the bench times a 2 MB file)."""
    body = "abs(" * 900 + "x[i]" + ")" * 900
    red = "sum(k: x[k] * max(j: abs(x[j])))"
    src = tmp_path / "k.ath"
    src.write_text("kernel k(x: f32[4]) -> (y: f32[4]) {\n"
                   + "".join(f"    let t{n}[i] = {body}\n" for n in range(20))
                   + f"    y[i] = x[i] + {red}\n}}\n")
    r = athene("check", src)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("n", [4611686018427387904, 35184372088832])
def test_huge_let_any_backend(tmp_path, n):
    """Item 1 on every backend: a let whose buffer cannot exist is a clean, located error
    (the reference interpreter, tests/diag/huge_let_*) or is fused away (the right result)."""
    src = tmp_path / "k.ath"
    src.write_text("kernel k(x: f32[N] strides(0)) -> (y: f32[]) { let t[i] = x[i]\n y = t[0] }\n")
    for backend in ([], ["--reference"], ["--check"]):
        r = athene("run", src, "--size", f"N={n}", *backend)
        no_crash(r)
        assert r.returncode == 0 or re.search(r"k\.ath:1:\d+: error: ", r.stderr), r.stderr


@pytest.mark.parametrize("kernel,sizes,target", [
    # item 4: round-ups near INT64_MAX in the analysis, the planner and the checker
    ("kernel k() -> (y: f32[N]) { y[i] = f32(i) }", ["--size", f"N={INT64_MAX}"], "cpu"),
    ("kernel k() -> (y: f32[N]) { y[i] = f32(i) }", ["--size", f"N={INT64_MAX}"], "tpu"),
    ("kernel k(x: f32[N, 4]) -> (y: f32[4]) { y[j] = sum(i: x[i, j]) }", ["--size", f"N={2**60}"], "cpu"),
    # item 9: a tpu plan on large dims keeps the (8, 128) rule
    ("kernel k(x: f32[6, 1048576]) -> (y: f32[16, 9]) { y[p, q] = x[p // 4 + q // 3, p % 4 + q % 3] }", [], "tpu"),
])
def test_explain_at_the_limits(tmp_path, kernel, sizes, target):
    src = tmp_path / "k.ath"
    src.write_text(kernel + "\n")
    for json in ([], ["--json"]):
        r = athene("explain", src, *sizes, "--target", target, *json)
        no_crash(r)
        assert r.returncode == 0, r.stderr
    for stmt in (s for k in jsonlib.loads(r.stdout) for s in k["statements"]):
        for g in stmt["grid"]:  # blocks * block covers the variable, without overflow
            assert g["blocks"] >= 1 and g["block"] >= 1, g
            if g["var"] == "i" and sizes:  # i ranges over N in every kernel here
                n = int(sizes[1].split("=")[1])
                assert g["blocks"] == -(-n // g["block"]), g


# ------------------------------------------------------- errors behind a decided value

@pytest.mark.parametrize("expr", ["sum(r < 7: x[wrap(i[], 9)]) || true", "sum(r < 7: x[wrap(i[], 9)]) && false",
                                  "where(sum(r < 7: x[wrap(i[], 9)]) > 0 || true, 1, 2) > 0"])
def test_error_in_a_value_the_result_does_not_need(tmp_path, expr):
    """`a || true` is true whatever `a` is, but the interpreter evaluates `a` first, and a bad index
    there is an error: the executor must report it too (it once skipped `a`), and write nothing."""
    src = tmp_path / "k.ath"
    src.write_text(f"kernel k(i: u8[], x: i8[9]) -> (y: bool[2]) {{\n    y[j] = {expr}\n}}\n")
    np.save(tmp_path / "i.npy", np.array(9, dtype=np.uint8))
    np.save(tmp_path / "x.npy", np.arange(9, dtype=np.int8))
    errors = []
    for mode in ([], ["--reference"], ["--threads", "2"]):
        out = tmp_path / "y.npy"
        r = athene("run", src, "--in", f"i={tmp_path / 'i.npy'}", "--in", f"x={tmp_path / 'x.npy'}",
                   "--out", f"y={out}", *mode)
        assert r.returncode == 1, (mode, r.stdout, r.stderr)
        assert "index 9 out of range for dim 0 of 'x'" in r.stderr, (mode, r.stderr)
        assert not out.exists()
        errors.append(r.stderr)
    assert len(set(errors)) == 1, errors


# ------------------------------------------------------- what the body IR decides once

def needed(body):
    """The instructions of a `-d body` listing that the store reads, through operands (not
    guards): the work left for the executor."""
    ins = {}
    for line in body.splitlines():
        m = re.match(r"\s+%(\d+) = (.*)", line)
        if m:
            ins[int(m.group(1))] = re.sub(r"\s+\[.*", "", m.group(2))
    todo = [int(m) for m in re.findall(r"(?:store|max over scope \d+ of) %(\d+)", body)]
    seen = set()
    while todo:
        r = todo.pop()
        if r in seen or r not in ins:
            continue
        seen.add(r)
        todo += [int(a) for a in re.findall(r"%(\d+)", ins[r])]
    return [ins[r] for r in sorted(seen)]


def test_causal_mask_is_one_comparison():
    """Inductor's causal mask `!((-1 * x0 + r <= 0) && true)` (examples/inductor.ath,
    causal_max) is one comparison of the two index variables in the body IR: the constant of
    `&& true` is decided, `!` of an integer comparison is the opposite one, and the difference
    compared with 0 is the two variables compared. The values are the interpreter's (--check)."""
    r = athene("-d", "body", "run", REPO / "examples" / "inductor.ath", "--kernel", "causal_max", "--check")
    assert r.returncode == 0, r.stderr
    assert "max_diff=0 ok" in r.stdout, r.stdout
    t = r.stdout.split("\n  t\n")[1].split("\n  m\n")[0]
    ops = needed(t)
    assert sum(".i64" in o for o in ops) == 1 and any(re.match(r"bool >\.i64 %\d+ %\d+", o) for o in ops), ops
    assert not any("&&" in o or "!." in o or "*.i64" in o or "neg" in o for o in ops), ops


@pytest.mark.parametrize("expr, want", [("true && (x[j] > 0.0)", "x[j] > 0.0"), ("(x[j] > 0.0) || false", "x[j] > 0.0"),
                                        ("!(j < 2)", "j >= 2"), ("!(!(j != 1))", "j != 1"),
                                        ("f32(-inf) < x[j]", "x[j] > f32(-inf)")])
def test_decided_logic_keeps_values(tmp_path, expr, want):
    """The logic the body IR decides from constants gives what the undecided form gives."""
    src = tmp_path / "k.ath"
    src.write_text(f"kernel k(x: f32[4]) -> (y: bool[4], z: bool[4]) {{\n    y[j] = {expr}\n    z[j] = {want}\n}}\n")
    np.save(tmp_path / "x.npy", np.array([1.0, -2.0, np.nan, 0.5], dtype=np.float32))
    for mode in ([], ["--reference"]):
        outs = [tmp_path / f"{n}.npy" for n in "yz"]
        r = athene("run", src, "--in", f"x={tmp_path / 'x.npy'}", "--out", f"y={outs[0]}", "--out", f"z={outs[1]}", *mode)
        assert r.returncode == 0, r.stderr
        y, z = (np.load(o) for o in outs)
        assert (y == z).all(), (expr, y, z)


def test_wrap_of_constants_below_1_is_still_an_error(tmp_path):
    """An op of constants is folded in the body IR, but wrap() with a modulus below 1 is an error
    at run time, constants or not: every engine reports it and writes nothing."""
    src = tmp_path / "k.ath"
    src.write_text("kernel k(x: i64[4]) -> (y: i64[4]) {\n    y[i] = x[i] + wrap(3, 0)\n}\n")
    np.save(tmp_path / "x.npy", np.arange(4, dtype=np.int64))
    for mode in ([], ["--reference"], ["--threads", "2"]):
        out = tmp_path / "y.npy"
        r = athene("run", src, "--in", f"x={tmp_path / 'x.npy'}", "--out", f"y={out}", *mode)
        assert r.returncode == 1 and "wrap() needs a positive modulus, not 0" in r.stderr, (mode, r.stderr)
        assert not out.exists()


# ----------------------------------------------------------------------------- emit's command line

EMIT_SRC = "kernel k(x: f32[N]) -> (y: f32[N]) {\n    y[i] = x[i] + 1.0\n}\n"


@pytest.mark.parametrize("through", ["same path", "symlink", "hard link", "dot path"])
def test_emit_refuses_to_write_over_the_kernel_file(tmp_path, through):
    """Issue 40, 1: -o naming the kernel file (however spelt) is refused and the file is kept."""
    src = tmp_path / "k.ath"
    src.write_text(EMIT_SRC)
    out = {"same path": src, "symlink": tmp_path / "link.py", "hard link": tmp_path / "hard.py",
           "dot path": tmp_path / "." / "k.ath"}[through]
    if through == "symlink":
        out.symlink_to("k.ath")
    if through == "hard link":
        os.link(src, out)
    r = athene("emit", src, "--target", "pallas", "--size", "N=8", "-o", out)
    assert r.returncode == 2, r.stderr
    assert "refusing to write" in r.stderr and "kernel file" in r.stderr, r.stderr
    assert src.read_text() == EMIT_SRC


def test_emit_is_in_the_help():
    r = athene("--help")
    assert r.returncode == 0 and "athene emit FILE --target pallas|pallas-gpu" in r.stdout, r.stdout


@pytest.mark.parametrize("args,flag", [
    (["--target", "nope"], "--target"),
    (["--target", "pallas", "--tpu", "v9"], "--tpu"),
    (["--target", "pallas", "-o", "a.py", "-o", "b.py"], "-o"),
    (["--target", "pallas", "--target", "pallas-gpu"], "--target"),
    (["--target", "pallas", "--kernel", "k", "--kernel", "k"], "--kernel"),
    (["--target", "pallas", "-o", ""], "-o"),
    (["--target", "pallas", "--size", "N=+8"], "--size"),
    (["--target", "pallas", "--size", "N= 8"], "--size"),
    (["--target", "pallas", "--size", "N=99999999999999999999"], "--size"),
    (["--target", "pallas", "--threads", "2"], "--threads"),
])
def test_emit_usage_errors_name_the_flag(tmp_path, args, flag):
    """Issue 40, 12: emit's usage errors are exit 2 naming the flag, and write no file."""
    src = tmp_path / "k.ath"
    src.write_text(EMIT_SRC)
    exe = os.path.abspath(ATHENE)
    r = subprocess.run([exe, "emit", str(src), "--size", "N=8", *args] if "--size" not in args else
                       [exe, "emit", str(src), *args], capture_output=True, text=True, timeout=TIMEOUT,
                       cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert r.returncode == 2, (args, r.stderr)
    assert re.search(f"athene: .*{re.escape(flag)}", r.stderr), (args, r.stderr)
    assert "usage:" in r.stderr
    assert not list(tmp_path.glob("*.py"))


def test_emit_with_a_pass_dump_is_a_usage_error(tmp_path):
    """Issue 40, 12: -d PASS before emit names -d, not an unknown command."""
    src = tmp_path / "k.ath"
    src.write_text(EMIT_SRC)
    r = athene("-d", "parse", "emit", src, "--target", "pallas", "--size", "N=8")
    assert r.returncode == 2, r.stderr
    assert "unknown command" not in r.stderr and "-d" in r.stderr.splitlines()[0], r.stderr


def test_emit_writes_its_module(tmp_path):
    src = tmp_path / "k.ath"
    src.write_text(EMIT_SRC)
    r = athene("emit", src, "--target", "pallas", "--tpu", "v5e", "--size", "N=8", "-o", tmp_path / "k.py")
    assert r.returncode == 0, r.stderr
    assert "def k(" in (tmp_path / "k.py").read_text()


@pytest.mark.parametrize("expr,numpy", [
    ("where(2 > x[i] % 0, x[i], z[i])", lambda x, z: np.where(2 > 0, x, z)),
    ("where(x[i] // 0 == 0, x[i] + 1, z[i])", lambda x, z: x + 1),
    ("where(x[i] % 0 < 1 && z[i] > 0, z[i], x[i])", lambda x, z: np.where(z > 0, z, x)),
])
@pytest.mark.parametrize("backend", [[], ["--reference"], ["--check"]])
def test_value_division_by_zero_in_a_guard_runs(tmp_path, expr, numpy, backend):
    """Issue 40, 10: integer // and % by zero are 0 in values, also in a where's condition (which
    the analysis reads for the guards of loads): the kernel runs, as NumPy computes it."""
    src = tmp_path / "k.ath"
    src.write_text(f"kernel k(x: i32[N], z: i32[N]) -> (y: i32[N]) {{\n    y[i] = {expr}\n}}\n")
    x = np.array([5, -3, 0, 7, 2**31 - 1], np.int32)
    z = np.array([-1, 4, 9, -8, 3], np.int32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "z.npy", z)
    r = athene("run", src, "--in", f"x={tmp_path / 'x.npy'}", "--in", f"z={tmp_path / 'z.npy'}",
               "--out", f"y={tmp_path / 'y.npy'}", *backend)
    assert r.returncode == 0, r.stderr
    if backend != ["--check"]:
        np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), numpy(x, z).astype(np.int32))


@pytest.mark.parametrize("cond", ["f[i] // j == 1", "f[i] % j == 1", "i // j < 2"])
def test_division_by_a_variable_of_no_values_in_a_guard(tmp_path, cond):
    """A divisor whose range is empty (a reduction variable of extent 0) in a where's condition
    compiled to a division by zero in the range rules (SIGFPE, found by tests/fuzz_python.py)."""
    src = tmp_path / "k.ath"
    src.write_text(f"kernel k(f: u8[N], t: f32[N, M]) -> (y: f32[N]) {{\n"
                   f"    y[i] = sum(j < M: where({cond}, t[i, j], 0.0))\n}}\n")
    for m in ("0", "3"):
        r = athene("run", src, "--size", "N=3", "--size", f"M={m}", "--check")
        assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("target", ["pallas", "pallas-gpu"])
@pytest.mark.parametrize("n", [INT64_MAX, INT64_MAX - 1, 2**62 + 1])
def test_emit_grid_at_the_limits(tmp_path, target, n):
    """The emitted grid counts blocks without overflow: ceil(n / block) (was (n + block - 1) / block,
    negative near 2^63; found by tests/fuzz_python.py under UBSan)."""
    src = tmp_path / "k.ath"
    src.write_text("kernel k(c: i32[N]) -> (y: i32[N]) {\n    y[i] = c[i] + 1\n}\n"
                   "kernel e(x: f32[N, M]) -> (y: f32[N, M]) {\n    y[i, j] = x[i, j] * 2.0\n}\n"
                   "kernel b(a: f32[]) -> (y: bool[N, M]) {\n    y[i, j] = a[]\n}\n")
    r = athene("emit", src, "--target", target, "--size", f"N={n}", "--size", "M=1")
    assert r.returncode == 0, r.stderr
    grids = re.findall(r"grid=\(([^)]*)\)", r.stdout)
    assert grids
    for g in grids:
        assert all(int(v) > 0 for v in g.split(",") if v.strip()), grids
    # b's tpu blocks pad its rows past 2^63 elements: the padding is cut off, whatever the product
    if target == "pallas":
        assert f"y = y.reshape(-1)[:{n}]" in r.stdout.split("# ---- kernel b")[1]


@pytest.mark.parametrize("target", ["pallas", "pallas-gpu"])
def test_emit_input_padded_past_int64(tmp_path, target):
    """An input whose tpu blocks pad it past 2^63 elements: no module (the emitter says why), or
    the module for the gpu's blocks (signed overflow before; found by tests/fuzz_python.py)."""
    src = tmp_path / "k.ath"
    src.write_text("kernel k(c: f32[N]) -> (y: f32[N, M]) {\n    y[i, j] = min(c[i] * c[i], -8)\n}\n")
    r = athene("emit", src, "--target", target, "--size", f"N={INT64_MAX}", "--size", "M=1")
    no_crash(r)
    if target == "pallas":  # (1 << 20)-element blocks: the input pads to 2^63 + 2^20 - 1
        assert r.returncode == 1 and "cannot express an array padded past 2^63 elements" in r.stderr, r.stderr
    else:
        assert r.returncode == 0, r.stderr
