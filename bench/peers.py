#!/usr/bin/env python3
"""The performance set (the shared CASES.md, section D) run by athene's peers.

Runs each case with NumPy, PyTorch eager, torch.compile and jax.jit (those
that are installed: bench/requirements-peers.txt) and with athene itself,
side by side in one process and one run, after a copy baseline measured in
the same run: np.copyto, and the same copy split over threads; "copy" is
the faster of the two. The peers of a case take turns: each timed round
calls every peer once, so a busy moment of the machine falls on all of them
alike (each round starting one peer further along), and each keeps its best
round. For every case and peer it prints
GB/s, counting the bytes logically read and written (each input element the
case reads once, each output element once), the fraction of copy, athene's
ratio to each peer, and the median and minimum of those over the 57
permutations. Strided reads also print their physical limit: logical bytes
over the bytes of the cache lines they touch (0.67 of copy for x[:, ::2],
0.40 for x[:, 1::4] in f32). Case names are the kernel names of
bench/perf.ath.

    python3 bench/peers.py [--quick] [--only NAME[,NAME...]] [--athene FILE]
                           [--peers numpy,torch,compile,jax,athene] [--repeat N]
                           [--min-time S]

For example, with the peers in .venv-peers (see bench/requirements-peers.txt):

    make build/libathene.so
    .venv-peers/bin/python bench/peers.py

athene runs in this process through its Python package (python/, the
installed package if there is one, else the checkout's with
build/libathene.so), on the kernels of bench/perf.ath, writing into a
preallocated output like NumPy and torch eager; its first result of each
case is checked against NumPy's. --athene FILE takes athene's times from
`athene run bench/perf.ath --bench` lines instead (`NAME: ...
time_s=<seconds> gbps=<GB/s>`, measured in another run).

--quick runs a subset at smaller shapes (a smoke test of the script; the
kernels of bench/perf.ath have the full shapes, so athene is not run there).
--only takes names or shell patterns ('perm_*'). Each timing is the best of
at least --repeat rounds after a warm-up call (which also compiles, for
torch.compile and jax.jit), and of as many more as fit in --min-time
seconds. torch.compile and jax.jit return new arrays, as
they are used. Nothing here is part of make test.
"""
import argparse
import concurrent.futures
import fnmatch
import math
import os
import platform
import random
import re
import statistics
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---- the cases ----

HPTT = """
(7264,7264)->(1,0)  (1216,43408)->(1,0)  (43408,1216)->(1,0)
(384,384,368)->(1,0,2)  (384,64,2144)->(1,0,2)  (2307,64,368)->(1,0,2)
(355,384,384)->(0,2,1)  (59,384,2320)->(0,2,1)  (59,2320,384)->(0,2,1)
(384,355,384)->(2,1,0)  (384,59,2320)->(2,1,0)  (2320,59,384)->(2,1,0)
(96,75,96,80)->(2,1,0,3)  (96,75,16,464)->(2,1,0,3)  (582,75,16,80)->(2,1,0,3)
(75,96,75,96)->(3,0,2,1)  (75,96,12,608)->(3,0,2,1)  (75,608,12,96)->(3,0,2,1)
(75,96,75,96)->(2,0,3,1)  (75,96,12,608)->(2,0,3,1)  (75,608,12,96)->(2,0,3,1)
(75,75,96,96)->(1,0,3,2)  (75,12,96,608)->(1,0,3,2)  (75,12,608,96)->(1,0,3,2)
(96,75,75,96)->(3,2,1,0)  (96,75,12,608)->(3,2,1,0)  (608,75,12,96)->(3,2,1,0)
(48,28,28,48,32)->(1,3,2,0,4)  (48,28,28,8,176)->(1,3,2,0,4)  (298,28,28,8,32)->(1,3,2,0,4)
(28,48,28,28,48)->(4,0,3,2,1)  (28,48,28,4,352)->(4,0,3,2,1)  (28,352,28,4,48)->(4,0,3,2,1)
(28,28,48,28,48)->(1,3,0,4,2)  (28,28,48,4,352)->(1,3,0,4,2)  (28,28,352,4,48)->(1,3,0,4,2)
(28,28,28,48,48)->(2,0,4,1,3)  (28,28,4,48,352)->(2,0,4,1,3)  (28,28,4,352,48)->(2,0,4,1,3)
(48,28,28,28,48)->(4,3,2,1,0)  (48,28,28,4,352)->(4,3,2,1,0)  (352,28,28,4,48)->(4,3,2,1,0)
(15,15,32,15,32,16)->(4,1,0,3,2,5)  (15,15,32,15,10,48)->(4,1,0,3,2,5)  (15,15,103,15,10,16)->(4,1,0,3,2,5)
(15,15,32,15,15,32)->(1,4,0,5,3,2)  (15,15,32,15,5,112)->(1,4,0,5,3,2)  (15,15,112,15,5,32)->(1,4,0,5,3,2)
(15,15,15,32,15,32)->(2,0,4,1,5,3)  (15,15,15,32,5,112)->(2,0,4,1,5,3)  (15,15,15,112,5,32)->(2,0,4,1,5,3)
(15,15,32,15,15,32)->(1,5,4,0,3,2)  (15,15,32,15,5,112)->(1,5,4,0,3,2)  (15,15,112,15,5,32)->(1,5,4,0,3,2)
(32,15,15,15,15,32)->(5,4,3,2,1,0)  (32,15,15,15,5,112)->(5,4,3,2,1,0)  (112,15,15,15,5,32)->(5,4,3,2,1,0)
"""

F32 = 4


class Case:
    """One case: its name (a kernel of bench/perf.ath), its kind and
    parameters, and the bytes it logically moves."""

    def __init__(self, name, kind, **p):
        self.name, self.kind, self.p = name, kind, p

    def nbytes(self):
        p = self.p
        if self.kind == "perm":
            return 2 * F32 * math.prod(p["shape"])
        if self.kind == "slice":
            return 2 * F32 * math.prod(slice_shape(p["shape"], p["index"]))
        if self.kind == "gather":
            return 8 * p["n"] + 2 * F32 * p["n"] * p["width"]
        if self.kind == "relu":
            r, c = p["shape"]
            return F32 * (2 * r * c + 2 * r)
        if self.kind == "add":
            return 3 * F32 * math.prod(p["shape"])
        if self.kind == "copy":
            return 2 * F32 * p["n"]
        raise ValueError(self.kind)


def physical_limit(case):
    """For a strided read, the most of copy it can reach in logical bytes:
    logical bytes / bytes of the cache lines (64 B) it touches. Reads that
    skip within lines touch every line of the rows they read."""
    rows, cols = case.p["shape"]
    ri, ci = case.p["index"]
    nr, nc = len(range(*ri.indices(rows))), len(range(*ci.indices(cols)))
    step = ci.indices(cols)[2]
    line_frac = 1.0 if step * F32 <= 64 else min(1.0, 64 / (step * F32))
    physical = nr * cols * F32 * line_frac + nr * nc * F32
    return 2 * F32 * nr * nc / physical


def slice_shape(shape, index):
    return tuple(len(range(*s.indices(n))) for s, n in zip(index, shape))


def perm_name(shape, axes):
    return "perm_%s_%s" % ("x".join(map(str, shape)), "".join(map(str, axes)))


def scaled(shape, target):
    """shape scaled down to about target elements, every dim at least 2."""
    f = (target / math.prod(shape)) ** (1.0 / len(shape))
    return tuple(max(2, round(d * f)) for d in shape)


def cases(quick):
    out = []
    n = 64 * 1024 * 1024 if not quick else 4 * 1024 * 1024
    side = 8192 if not quick else 2048
    out.append(Case("copy", "copy", n=n))
    out.append(Case("add", "add", shape=(side, side)))
    out.append(Case("strided_cols_2", "slice", shape=(side, side), index=(slice(None), slice(None, None, 2))))
    out.append(Case("strided_rows_2", "slice", shape=(side, side), index=(slice(None, None, 2), slice(None))))
    out.append(Case("strided_cols_1_4", "slice", shape=(side, side), index=(slice(None), slice(1, None, 4))))
    rows, ng = (1 << 20, 65536) if not quick else (1 << 16, 8192)
    out.append(Case("gather_rows_512b", "gather", rows=rows, width=128, n=ng))
    out.append(Case("gather_rows_64b", "gather", rows=rows, width=16, n=ng))
    out.append(Case("relu_t_scale_bias", "relu", shape=(side, side)))
    perms = re.findall(r"\(([\d,]+)\)->\(([\d,]+)\)", HPTT)
    assert len(perms) == 57
    for i, (dims, axes) in enumerate(perms):
        shape = tuple(int(d) for d in dims.split(","))
        axes = tuple(int(a) for a in axes.split(","))
        if quick and i % 3:
            continue  # the first of each group of three
        name = perm_name(shape, axes)
        out.append(Case(name, "perm", shape=scaled(shape, 1 << 20) if quick else shape, axes=axes))
    return out


def inputs(case, rng):
    """The case's NumPy inputs (float32 in [-2, 2), i64 row indices)."""
    p = case.p

    def f32(*shape):
        return (rng.random(shape, dtype=np.float32) * 4 - 2).astype(np.float32, copy=False)

    if case.kind == "perm":
        return [f32(*p["shape"])]
    if case.kind == "slice":
        return [f32(*p["shape"])]
    if case.kind == "gather":
        return [f32(p["rows"], p["width"]), rng.integers(0, p["rows"], p["n"], dtype=np.int64)]
    if case.kind == "relu":
        r, c = p["shape"]
        return [f32(r, c), f32(r), f32(r)]
    if case.kind == "add":
        return [f32(*p["shape"]), f32(*p["shape"])]
    if case.kind == "copy":
        return [f32(p["n"])]
    raise ValueError(case.kind)


# ---- the peers: each returns a function of no arguments doing the case once ----


def numpy_fn(case, x):
    """The case by NumPy into a preallocated output, the function's .out."""
    fn, out = numpy_parts(case, x)
    fn.out = out
    return fn


def numpy_parts(case, x):
    p = case.p
    if case.kind == "perm":
        v = x[0].transpose(p["axes"])
        out = np.empty(v.shape, np.float32)
        return lambda: np.copyto(out, v), out
    if case.kind == "slice":
        v = x[0][p["index"]]
        out = np.empty(v.shape, np.float32)
        return lambda: np.copyto(out, v), out
    if case.kind == "gather":
        t, idx = x
        out = np.empty((len(idx), t.shape[1]), np.float32)
        return lambda: np.take(t, idx, axis=0, out=out), out
    if case.kind == "relu":
        a, s, b = x
        out = np.empty(a.shape[::-1], np.float32)

        def f():
            np.multiply(a.T, s, out=out)
            np.add(out, b, out=out)
            np.maximum(out, 0, out=out)

        return f, out
    if case.kind == "add":
        out = np.empty_like(x[0])
        return lambda: np.add(x[0], x[1], out=out), out
    if case.kind == "copy":
        out = np.empty_like(x[0])
        return lambda: np.copyto(out, x[0]), out


def torch_tensors(x):
    import torch

    return [torch.from_numpy(a) for a in x]


def torch_fn(case, x):
    import torch

    p = case.p
    t = torch_tensors(x)
    if case.kind == "perm":
        v = t[0].permute(p["axes"])
        out = torch.empty(v.shape, dtype=torch.float32)
        return lambda: out.copy_(v)
    if case.kind == "slice":
        v = t[0][p["index"]]
        out = torch.empty(v.shape, dtype=torch.float32)
        return lambda: out.copy_(v)
    if case.kind == "gather":
        table, idx = t
        out = torch.empty((len(idx), table.shape[1]), dtype=torch.float32)
        return lambda: torch.index_select(table, 0, idx, out=out)
    if case.kind == "relu":
        a, s, b = t
        out = torch.empty(a.T.shape, dtype=torch.float32)

        def f():
            torch.addcmul(b, a.T, s, out=out)
            out.relu_()

        return f
    if case.kind == "add":
        out = torch.empty_like(t[0])
        return lambda: torch.add(t[0], t[1], out=out)
    if case.kind == "copy":
        out = torch.empty_like(t[0])
        return lambda: out.copy_(t[0])


def compile_fn(case, x):
    import torch

    p = case.p
    t = torch_tensors(x)
    # the lambdas below share code objects across cases: without a reset,
    # dynamo stops recompiling after its cache limit and runs them eagerly
    torch._dynamo.reset()
    if case.kind == "perm":
        axes = p["axes"]
        f = torch.compile(lambda a: a.permute(axes).contiguous(), dynamic=False)
    elif case.kind == "slice":
        index = p["index"]
        f = torch.compile(lambda a: a[index].contiguous(), dynamic=False)
    elif case.kind == "gather":
        f = torch.compile(lambda table, idx: table[idx], dynamic=False)
    elif case.kind == "relu":
        f = torch.compile(lambda a, s, b: torch.relu(a.T * s + b), dynamic=False)
    elif case.kind == "add":
        f = torch.compile(lambda a, b: a + b, dynamic=False)
    elif case.kind == "copy":
        f = torch.compile(lambda a: a.clone(), dynamic=False)
    return lambda: f(*t)


def jax_fn(case, x):
    import jax
    import jax.numpy as jnp

    p = case.p
    j = [jax.device_put(a) for a in x]
    if case.kind == "perm":
        axes = p["axes"]
        f = jax.jit(lambda a: jnp.transpose(a, axes))
    elif case.kind == "slice":
        index = p["index"]
        f = jax.jit(lambda a: a[index])
    elif case.kind == "gather":
        f = jax.jit(lambda table, idx: jnp.take(table, idx, axis=0))
    elif case.kind == "relu":
        f = jax.jit(lambda a, s, b: jax.nn.relu(a.T * s + b))
    elif case.kind == "add":
        f = jax.jit(lambda a, b: a + b)
    elif case.kind == "copy":
        f = jax.jit(lambda a: jnp.copy(a))
    return lambda: f(*j).block_until_ready()


def athene_module():
    """bench/perf.ath compiled by the athene package: the installed one, or
    the checkout's (python/) with build/libathene.so."""
    try:
        import athene
    except ImportError:
        os.environ.setdefault("ATHENE_LIBRARY", os.path.join(REPO, "build", "libathene.so"))
        sys.path.insert(0, os.path.join(REPO, "python"))
        import athene
    return athene, athene.load(os.path.join(REPO, "bench", "perf.ath"))


_ATHENE = []


def athene_fn(case, x):
    if not _ATHENE:
        _ATHENE.extend(athene_module())
    kernel = _ATHENE[1][case.name]
    out = kernel(*x)  # athene's own output, as np.empty's is NumPy's
    want = numpy_fn(case, x)
    want()
    if want.out.shape != out.shape or not np.allclose(out, want.out, rtol=1e-6, atol=1e-6):
        raise AssertionError("athene's result differs from NumPy's")
    want = None
    return lambda: kernel(*x, out=out)


PEERS = {"numpy": numpy_fn, "torch": torch_fn, "compile": compile_fn, "jax": jax_fn, "athene": athene_fn}
TITLES = {"numpy": "NumPy", "torch": "torch eager", "compile": "torch.compile", "jax": "jax.jit", "athene": "athene"}


def available(name):
    try:
        if name in ("torch", "compile"):
            import torch  # noqa: F401
        elif name == "jax":
            import jax  # noqa: F401
        elif name == "athene":
            if not _ATHENE:
                _ATHENE.extend(athene_module())
        return None
    except Exception as e:  # not installed, or broken
        return "%s: %s" % (type(e).__name__, e)


# ---- timing ----


def best_of(fn, repeat, min_time):
    return best_of_turns({None: fn}, repeat, min_time)[None]


def best_of_turns(fns, repeat, min_time):
    """{name: best time} of the functions in fns, after a warm-up call of each
    (first touch of the outputs, compilation), over repeat rounds in which
    each is called once, in turn, and over as many more rounds as fit in
    min_time seconds (at most 200): a short case gets more chances at a quiet
    moment, for every peer alike. Each round calls them in an order of its
    own (a seeded shuffle), so that each function follows each other one
    about as often. A function whose warm-up call took under SETTLE seconds
    is called once more, untimed, right before each timed call, so that the
    timed call follows a call of its own: a call right after jax.jit's or
    torch's runs while their threads still spin (libgomp spins for
    milliseconds after a parallel region), which on two CPUs made a 0.3 ms
    gather up to twice as slow, and a user calls one function again and
    again. Longer calls are timed as they come. (Rotating one order kept
    every function behind the same one in every round.)"""
    names = list(fns)
    settle = {}
    for name in names:
        t = time.perf_counter()
        fns[name]()
        settle[name] = time.perf_counter() - t < SETTLE
    best = dict.fromkeys(fns, math.inf)
    order = random.Random(2026)
    start = time.perf_counter()
    r = 0
    while r < repeat or (time.perf_counter() - start < min_time and r < 200):
        order.shuffle(names)
        for name in names:
            if settle[name]:
                fns[name]()
            t = time.perf_counter()
            fns[name]()
            best[name] = min(best[name], time.perf_counter() - t)
        r += 1
    return best


SETTLE = 0.02  # seconds: calls shorter than this are timed right after an untimed call of their own


def threaded_copy_fn(n, threads):
    src = np.random.default_rng(1).random(n, dtype=np.float32)
    dst = np.empty_like(src)
    bounds = [n * i // threads for i in range(threads + 1)]
    pool = concurrent.futures.ThreadPoolExecutor(threads)

    def part(i):
        np.copyto(dst[bounds[i]:bounds[i + 1]], src[bounds[i]:bounds[i + 1]])

    def f():
        list(pool.map(part, range(threads)))

    return f, pool


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def read_athene(path):
    """{kernel name: (time_s, gbps)} from `athene run --bench` lines."""
    res = {}
    f = sys.stdin if path == "-" else open(path)
    for line in f:
        m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*):.*\btime_s=([0-9.eE+-]+)\s+gbps=([0-9.eE+-]+)", line)
        if m:
            res[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    if f is not sys.stdin:
        f.close()
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a subset at smaller shapes")
    ap.add_argument("--only", help="case names or shell patterns, comma-separated")
    ap.add_argument("--athene", metavar="FILE", help="athene's times from this `athene run --bench` output "
                    "('-' for stdin) instead of running it here")
    ap.add_argument("--peers", default="numpy,torch,compile,jax,athene", help="which peers, comma-separated")
    ap.add_argument("--repeat", type=int, default=0, help="timed calls per case, at least (default 5, 3 with --quick)")
    ap.add_argument("--min-time", type=float, default=1.0, help="seconds of timed calls per case, at least "
                    "(default 1; more calls where they fit)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="threads of torch and the threaded copy")
    args = ap.parse_args()
    repeat = args.repeat or (3 if args.quick else 5)
    if repeat < 1 or not args.min_time >= 0:
        ap.error("--repeat needs a count of at least 1 and --min-time seconds of at least 0")
    min_time = args.min_time
    peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    for p in peers:
        if p not in PEERS:
            ap.error("unknown peer %r (known: %s)" % (p, ", ".join(PEERS)))
    athene = {}  # athene's times from --athene FILE
    if args.athene or args.quick:
        peers = [p for p in peers if p != "athene"]
    if args.athene and args.quick:
        print("peers.py: --athene ignored with --quick (the shapes differ)")
    elif args.athene:
        athene = read_athene(args.athene)
    elif args.quick:
        print("peers.py: athene not run with --quick (bench/perf.ath has the full shapes)")
    missing = {p: available(p) for p in peers}
    peers = [p for p in peers if missing[p] is None]
    others = [p for p in peers if p != "athene"]
    versions = ["numpy %s" % np.__version__]
    if "torch" in peers or "compile" in peers:
        import logging

        import torch

        logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)  # "No CUDA runtime is found"

        torch.set_num_threads(args.threads)
        versions.append("torch %s (%d threads)" % (torch.__version__, torch.get_num_threads()))
    if "jax" in peers:
        import jax

        versions.append("jax %s" % jax.__version__)
    if "athene" in peers:
        _ATHENE[0].set_threads(args.threads)
        versions.append("athene %s in process (%d threads)" % (_ATHENE[0].__version__, _ATHENE[0].threads()))
    elif athene:
        versions.append("athene from %s" % args.athene)
    print("peers.py: %s, %d CPUs, %s, %s" % (cpu_model(), os.cpu_count() or 0, ", ".join(versions),
                                             time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    for p, why in missing.items():
        if why:
            print("peers.py: %s not run (%s)" % (TITLES[p], why))

    all_cases = cases(args.quick)
    if args.only:
        pats = [s.strip() for s in args.only.split(",")]
        sel = [c for c in all_cases if any(fnmatch.fnmatchcase(c.name, pat) for pat in pats)]
        if not sel:
            ap.error("no case matches --only %s" % args.only)
        all_cases = sel

    # the copy baseline, in this run
    n = next(c for c in cases(args.quick) if c.kind == "copy").p["n"]
    cbytes = 2 * F32 * n
    src = np.random.default_rng(0).random(n, dtype=np.float32)
    dst = np.empty_like(src)
    t_np = best_of(lambda: np.copyto(dst, src), repeat, min_time)
    del src, dst
    f, pool = threaded_copy_fn(n, args.threads)
    t_th = best_of(f, repeat, min_time)
    pool.shutdown()
    copy = max(cbytes / t_np, cbytes / t_th) / 1e9
    line = "copy (%d MiB): np.copyto %.2f GB/s, np.copyto on %d threads %.2f GB/s; copy = %.2f GB/s" % (
        n * F32 >> 20, cbytes / t_np / 1e9, args.threads, cbytes / t_th / 1e9, copy)
    if "copy" in athene:
        line += "; athene's copy kernel %.2f GB/s" % athene["copy"][1]
    print(line)

    cols = peers + (["athene"] if athene else [])
    ratios = "athene" in cols and others
    head = "%-32s %8s" % ("case", "MB") + "".join(" %18s" % (TITLES.get(c, c)) for c in cols)
    if ratios:
        head += "   athene / " + " ".join("%-8s" % c for c in others)
    print(head)
    print("%-32s %8s" % ("", "") + "".join(" %18s" % "GB/s (of copy)" for _ in cols))
    rng = np.random.default_rng(2026)
    results = {}
    for case in all_cases:
        nb = case.nbytes()
        x = inputs(case, rng)
        row, fns = dict.fromkeys(peers), {}
        for p in peers:
            try:
                fns[p] = PEERS[p](case, x)
            except Exception as e:  # a peer that cannot run a case says why
                print("  %s on %s failed: %s: %s" % (TITLES[p], case.name, type(e).__name__, str(e)[:200]))
        try:
            row.update((p, nb / t / 1e9) for p, t in best_of_turns(fns, repeat, min_time).items())
        except Exception as e:  # one peer failing on a call: time the others alone
            print("  %s: %s: %s" % (case.name, type(e).__name__, str(e)[:200]))
            for p, fn in fns.items():
                try:
                    row[p] = nb / best_of(fn, repeat, min_time) / 1e9
                except Exception as e:
                    print("  %s on %s failed: %s: %s" % (TITLES[p], case.name, type(e).__name__, str(e)[:200]))
        fns = None
        if athene:
            # athene's time over this case's own bytes: the CLI counts every input
            # element, which overstates strided reads and gathers
            row["athene"] = nb / athene[case.name][0] / 1e9 if case.name in athene else None
        results[case.name] = row
        text = "%-32s %8.1f" % (case.name, nb / 1e6)
        for c in cols:
            g = row.get(c)
            text += " %18s" % ("-" if g is None else "%7.2f (%5.3f)" % (g, g / copy))
        if ratios:
            a = row.get("athene")
            text += "   " + " ".join("%-8s" % ("-" if a is None or not row.get(p) else "%.2fx" % (a / row[p]))
                                     for p in others)
        if case.kind == "slice":
            text += "   (physical limit %.2f of copy)" % physical_limit(case)
        print(text, flush=True)
        x = None

    perms = [c.name for c in all_cases if c.kind == "perm"]
    if len(perms) > 1:
        print("over the %d permutations:" % len(perms))
        for c in cols:
            fr = [results[n][c] / copy for n in perms if results[n].get(c)]
            if fr:
                print("  %-14s fraction of copy: median %.3f, min %.3f" % (TITLES.get(c, c), statistics.median(fr), min(fr)))
        for p in others if ratios else []:
            r = [results[n]["athene"] / results[n][p] for n in perms if results[n].get("athene") and results[n].get(p)]
            if r:
                print("  athene / %-14s median %.2fx, min %.2fx" % (TITLES[p], statistics.median(r), min(r)))


if __name__ == "__main__":
    main()
