#!/usr/bin/env python3
"""Fuzzer of the Python package (make fuzz runs it on the ASan+UBSan library).

    python tests/fuzz_python.py [--seconds S] [--seed SEED] [--threads T] [--keep DIR]
    python tests/fuzz_python.py --replay CASE_SEED

Random kernels (tests/kernelgen.py: every dtype, elementwise statements and reductions, row
gathers with wrap, lets, an output that declares its layout) are compiled with small sizes, or
with sizes at the 64-bit limits, and called:

- on contiguous inputs (the baseline), then on the same values in other layouts: Fortran order,
  flipped (negative strides), strided views into a larger array, transposed storage, broadcast
  (stride 0) where the values allow, and copies one byte off their alignment; every answer must
  be the baseline's, bit for bit (NaN for NaN), or the same kind of error;
- with out= arrays of those layouts (filled with a sentinel first): written with the baseline's
  values, or, after an error, untouched;
- from several threads at once (the same kernel, out= arrays of their own), against the baseline;
- with bad arguments: wrong dtypes, ranks, None, strings, bytes, lossy scalars, ints beyond 64
  bits, sizes= of the wrong type or with unknown symbols, out= of the wrong count, dtype, shape,
  read-only, overlapping an input or another out=, bad explain/plan/dump/pallas arguments (NUL
  bytes, unknown targets and passes), bad set_threads values; and explain, plan, layouts, dump
  and pallas on good ones.

A finding is any exception other than the documented TypeError, ValueError, MemoryError and
athene.Error (CompileError, RunError), a message with "internal", a layout, thread or out= answer
that differs from the baseline, an out= written by a failing run, and, from the parent process,
a crash, a sanitizer report or a hang (the cases run in a child process, which reports the case
it was in). Each case has a seed of its own: --replay runs one. Exit status 1 on any finding.
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

HANG = 120  # seconds a child may go past its time before it counts as hung


# ----------------------------------------------------------------------------- the child


class Finding(Exception):
    pass


def child(args):
    import warnings

    import numpy as np

    warnings.simplefilter("ignore")  # NumPy's casts of edge values in bad arguments

    import athene
    import kernelgen as G

    allowed = (TypeError, ValueError, MemoryError, athene.Error)

    def outcome(fn):
        """fn()'s arrays as a tuple, or the type of the documented error it raised."""
        try:
            r = fn()
        except allowed as e:
            if "internal" in str(e):
                raise Finding(f"an internal error: {type(e).__name__}: {e}")
            return type(e)
        except Exception as e:
            raise Finding(f"an undocumented exception {type(e).__name__}: {e}\n{traceback.format_exc()}")
        return r if isinstance(r, tuple) else (r,)

    def comparable(a):
        a = np.asarray(a)
        return a.astype(np.float32) if a.dtype == athene.BFLOAT16 else a

    def same(a, b):
        if isinstance(a, type) or isinstance(b, type):
            return a is b
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            x, y = comparable(x), comparable(y)
            if x.dtype != y.dtype or x.shape != y.shape:
                return False
            if not np.array_equal(x, y, equal_nan=x.dtype.kind == "f"):
                return False
        return True

    def describe(r):
        return r.__name__ if isinstance(r, type) else [np.asarray(x).tolist() for x in r][:2]

    def misaligned(a):
        raw = np.zeros(a.nbytes + a.itemsize + 1, np.uint8)
        at = (-raw.ctypes.data) % a.itemsize + 1
        m = raw[at:at + a.nbytes].view(a.dtype).reshape(a.shape)
        m[...] = a
        return m

    def layout(rng, a, broadcast_from=None):
        """The values of a in another layout."""
        kind = rng.choice(["fortran", "flip", "strided", "transposed", "misaligned", "broadcast", "plain"])
        if kind == "broadcast" and broadcast_from is not None:
            return np.broadcast_to(broadcast_from, a.shape)
        if a.ndim == 0 or kind == "plain":
            return misaligned(a) if kind == "misaligned" and a.itemsize > 1 else a.copy()
        if kind == "fortran":
            return np.asfortranarray(a)
        if kind == "flip":
            return np.flip(np.flip(a).copy())
        if kind == "strided":
            big = np.zeros(tuple(2 * n + 1 for n in a.shape), a.dtype)
            v = big[tuple(slice(1, None, 2) for _ in a.shape)]
            v[...] = a
            return v
        if kind == "transposed":
            return a.T.copy().T
        if a.itemsize > 1:
            return misaligned(a)
        return a.copy()

    def out_array(rng, shape, dt, fill):
        base = np.full(shape, fill, dt)
        kind = rng.choice(["plain", "fortran", "flip", "strided", "misaligned"])
        if not shape or kind == "plain":
            return base
        if kind == "fortran":
            return np.asfortranarray(base)
        if kind == "flip":
            return np.flip(np.flip(base).copy())
        if kind == "strided":
            big = np.full(tuple(2 * n for n in shape), fill, dt)
            return big[tuple(slice(None, None, 2) for _ in shape)]
        return misaligned(base) if base.itemsize > 1 else base

    def sentinel(dt):
        return True if dt == np.bool_ else dt.type(7)

    def one_case(seed, log):
        rng = random.Random(seed)
        g = G.Gen(rng, big=rng.random() < 0.08)
        log(f"case {seed}\n{g.source}sizes {g.sizes}\n")
        try:
            mod = athene.compile(g.source, filename="fuzz.ath")
        except athene.CompileError as e:
            if "internal" in str(e):
                raise Finding(f"an internal error: {e}")
            return "compile error"
        k = mod.k
        sizes = {s: g.sizes[s] for s in k.size_names}
        if any(v > 4096 for v in sizes.values()):
            def small_call():  # only where the outputs are small: a run over 2^33 elements takes minutes
                lay = k.layouts(sizes=sizes)
                if sum(lay[p.name].storage_elems for p in k.outputs) < 1 << 20:
                    k(*[np.zeros((1,) * p.rank, p.numpy_dtype) for p in k.inputs], sizes=sizes)

            for fn in (lambda: k.explain(sizes=sizes, target=rng.choice(["cpu", "tpu"])),
                       lambda: k.plan(sizes=sizes), lambda: k.layouts(sizes=sizes),
                       lambda: k.pallas(sizes=sizes), small_call):
                try:
                    fn()
                except allowed as e:
                    if "internal" in str(e):
                        raise Finding(f"an internal error: {e}")
                except Exception as e:
                    raise Finding(f"an undocumented exception {type(e).__name__}: {e}\n{traceback.format_exc()}")
            return "big"
        inputs, bcast = [], []
        for p in k.inputs:
            shape = tuple(sizes[d] for d in p.dims)
            if p.rank and rng.random() < 0.2:  # constant along dim 0: a broadcast view reads it too
                row = G.values(rng, p.dtype, shape[1:], p.name, g.sizes)
                inputs.append(np.ascontiguousarray(np.broadcast_to(row, shape)))
                bcast.append(row)
            else:
                inputs.append(G.values(rng, p.dtype, shape, p.name, g.sizes))
                bcast.append(None)
        base = outcome(lambda: k(*inputs, sizes=sizes))
        # other layouts of the same values
        for _ in range(2):
            args = [layout(rng, a, b) for a, b in zip(inputs, bcast)]
            if self_test and args and args[0].size and args[0].dtype.kind in "iuf":
                args[0] = args[0].copy()  # a wrong answer the check must see
                args[0].reshape(-1)[0] += 1
            got = outcome(lambda: k(*args, sizes=sizes))
            if not same(got, base):
                raise Finding(f"inputs in other layouts give {describe(got)}, contiguous ones {describe(base)}: "
                              f"strides {[a.strides for a in args]}")
        # out= of other layouts
        lay = None if isinstance(base, type) else k.layouts(*inputs, sizes=sizes)
        if lay is not None:
            outs = []
            for p, r in zip(k.outputs, base):
                dt = p.numpy_dtype
                if p.declares_layout:
                    outs.append(np.full(max(lay[p.name].storage_elems, 1), sentinel(dt), dt))
                else:
                    outs.append(out_array(rng, np.shape(r), dt, sentinel(dt)))
            got = outcome(lambda: k(*inputs, out=tuple(outs), sizes=sizes))
            if not same(got, base):
                raise Finding(f"out= in other layouts gives {describe(got)}, without {describe(base)}")
        # a failing run leaves out= untouched
        if base is athene.RunError:
            shapes = [tuple(sizes[d] for d in p.dims) for p in k.outputs]
            if not any(p.declares_layout for p in k.outputs):
                outs = [np.full(s, sentinel(p.numpy_dtype), p.numpy_dtype) for s, p in zip(shapes, k.outputs)]
                got = outcome(lambda: k(*inputs, out=tuple(outs), sizes=sizes))
                if got is not athene.RunError:
                    raise Finding(f"with out= the failing run gives {describe(got)}")
                for o, p in zip(outs, k.outputs):
                    if not (o == sentinel(p.numpy_dtype)).all():
                        raise Finding(f"a failing run wrote out= for '{p.name}'")
        # several threads at once
        if rng.random() < 0.3:
            answers, nthreads = [], rng.randint(2, args_threads)

            def worker():
                for _ in range(3):
                    answers.append(outcome(lambda: k(*inputs, sizes=sizes)))

            ts = [threading.Thread(target=worker) for _ in range(nthreads)]
            errors = []
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            for got in answers:
                if not same(got, base):
                    errors.append(describe(got))
            if errors:
                raise Finding(f"{nthreads} threads gave {errors[0]}, one thread {describe(base)}")
        # looking inside
        for fn in rng.sample([lambda: k.explain(*inputs, target=rng.choice(["cpu", "tpu"])),
                              lambda: k.plan(*inputs, target="tpu"), lambda: k.layouts(*inputs),
                              lambda: k.dump(rng.choice(["bind", "inline", "lower", "simplify", "analyse", "plan",
                                                         "body"]), *inputs),
                              lambda: k.pallas(*inputs, chip=rng.choice([None, "v5e", "v6e"]))], 2):
            outcome(lambda: (fn(),))
        # bad arguments
        for _ in range(3):
            bad_call(rng, k, inputs, sizes, log)
        return "ran" if not isinstance(base, type) else base.__name__

    def bad_call(rng, k, inputs, sizes, log):
        args = list(inputs)
        kw = {"sizes": dict(sizes)}
        i = rng.randrange(len(args)) if args else None
        what = rng.randrange(22)
        if what == 0 and args:
            others = [d for d in G.DTYPES if G.np_dtype(d) != args[i].dtype]
            args[i] = args[i].astype(G.np_dtype(rng.choice(others)))
        elif what == 1 and args:
            args[i] = args[i].reshape(args[i].shape + (1,))
        elif what == 2 and args:
            args[i] = rng.choice([None, "7", b"1", 1.5, 2**70, 1j, object(), [[1, 2], [3]], float("nan"), -1, 300])
        elif what == 3:
            args.append(np.zeros(3))
        elif what == 4:
            kw["nope"] = np.zeros(2)
        elif what == 5 and args:
            kw[k.inputs[i].name] = args[i]
        elif what == 6:
            kw["sizes"] = rng.choice([5, "N=3", [("N", 3)], {"N": 2**64 + 3}, {"N": -1}, {"Q": 1}, {"N": "3"},
                                      {"N": 1.5}, {"N": True}, {"N\0": 1}, {"M": 2**63}])
        elif what == 7:
            n = len(k.outputs) + rng.choice([-1, 1])
            kw["out"] = tuple(np.zeros(1, np.float32) for _ in range(max(n, 0)))
        elif what == 8:
            shapes = [tuple(sizes.get(d, 1) for d in p.dims) for p in k.outputs]
            outs = [np.zeros(s, p.numpy_dtype) for s, p in zip(shapes, k.outputs)]
            j = rng.randrange(len(outs))
            mode = rng.randrange(4)
            if mode == 0:
                outs[j] = outs[j].astype(np.float64 if outs[j].dtype != np.float64 else np.float32)
            elif mode == 1:
                outs[j] = np.zeros(tuple(n + 1 for n in outs[j].shape) or (2,), outs[j].dtype)
            elif mode == 2:
                outs[j].flags.writeable = False
            elif len(outs) > 1 and outs[0].dtype == outs[1].dtype and outs[0].shape == outs[1].shape:
                outs[1] = outs[0]
            elif args and args[0].dtype == outs[j].dtype and args[0].shape == outs[j].shape:
                outs[j] = args[0]  # out= over an input
            kw["out"] = tuple(outs)
        elif what == 9:
            outcome(lambda: (k.explain(*args, target=rng.choice(["gpu", "cpu\0", "", 3, None, "tpu"])),))
            return
        elif what == 10:
            outcome(lambda: (k.dump(rng.choice(["nope", "body\0x", "", "parse", 7]), *args),))
            return
        elif what == 11:
            outcome(lambda: (k.pallas(*args, chip=rng.choice(["v9", "v5e\0", "", 5]),
                                      target=rng.choice(["pallas", "pallas-gpu", "cuda"])),))
            return
        elif what == 12:
            n = rng.choice([-1, 2**32 + 3, 1025, 2.0, "2", None, True, 0, 1, 2, 3, 4])
            before = athene.threads()
            outcome(lambda: (athene.set_threads(n),))
            athene.set_threads(before if rng.random() < 0.7 else rng.choice([0, 1, 2, 3, 4]))
            return
        elif what == 13:
            outcome(lambda: (athene.compile(k._module.source.replace("k(", "k(\0", 1)),))
            return
        elif what == 14:
            outcome(lambda: (athene.compile(k._module.source, filename=rng.choice(["a\0b", 5, None])),))
            return
        elif what == 15:
            outcome(lambda: (k.plan(*args, target=rng.choice(["tpu", "gpu", "cpu"])),))
            return
        elif what == 16:
            outcome(lambda: (k.layouts(*args[: rng.randrange(len(args) + 1)], sizes=rng.choice([None, sizes])),))
            return
        elif what == 17 and args:
            args[i] = np.asarray(args[i])[..., ::-1] if args[i].ndim else args[i]
        elif what == 18 and args and args[i].ndim:  # byte strides off the item size, inside a buffer of their own
            a = args[i]
            step = a.itemsize + 1
            raw = np.zeros(step * max(a.size, 1) * a.ndim + a.itemsize, np.uint8)
            args[i] = np.lib.stride_tricks.as_strided(raw.view(np.uint8)[:a.itemsize].view(a.dtype)
                                                      if a.itemsize > 1 else raw, shape=a.shape,
                                                      strides=tuple(step * (a.ndim - d) for d in range(a.ndim)))
        elif what == 19:
            args = args[:-1]
        elif what == 20 and args:
            args[i] = args[i].tolist()
        log(f"bad call {what}: k({', '.join(_brief(a) for a in args)}, {', '.join(f'{n}={_brief(v)}' for n, v in kw.items())})\n")
        outcome(lambda: k(*args, **kw))

    args_threads = args.threads
    self_test = args.self_test
    log_path = args.log
    start = time.time()
    counts = {}
    seeds = [args.replay] if args.replay is not None else None
    n = 0
    while True:
        if seeds is not None:
            if n == len(seeds):
                break
            seed = seeds[n]
        else:
            if time.time() - start >= args.seconds:
                break
            seed = args.seed * 1_000_003 + n
        n += 1
        with open(log_path, "w") as fp:
            fp.write("")

        def log(text):
            with open(log_path, "a") as fp:
                fp.write(text)

        try:
            what = one_case(seed, log)
        except Finding as f:
            print(f"fuzz_python: FINDING in case {seed}:\n{f}\n{open(log_path).read()}", flush=True)
            return 1
        counts[what] = counts.get(what, 0) + 1
        if seed % 7 == 0:
            athene.set_threads(random.Random(seed).choice([0, 1, 2, 3]))
    total = sum(counts.values())
    print(f"fuzz_python: {total} cases in {time.time() - start:.0f} s, no finding: "
          + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())), flush=True)
    return 0


def _brief(v):
    """An argument as a reproducer reads it: an array's dtype, shape and strides (and its values
    when small), anything else its repr."""
    import numpy as np

    if isinstance(v, tuple):
        return "(" + ", ".join(_brief(x) for x in v) + ")"
    if isinstance(v, np.ndarray):
        vals = f" {v.tolist()}" if v.size <= 8 else ""
        return f"<{v.dtype} {v.shape} strides {v.strides} at {v.ctypes.data % 64} mod 64{vals}>"
    r = repr(v)
    return r if len(r) < 60 else r[:57] + "..."


# ----------------------------------------------------------------------------- the parent


SANITIZER = ("AddressSanitizer", "UndefinedBehaviorSanitizer", "LeakSanitizer", "runtime error:", "ThreadSanitizer")


def parent(args):
    keep = Path(args.keep or tempfile.mkdtemp(prefix="fuzz_python_"))
    keep.mkdir(parents=True, exist_ok=True)
    log = keep / "current_case.txt"
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--log", str(log), "--seconds",
           str(args.seconds), "--seed", str(args.seed), "--threads", str(args.threads)]
    if args.replay is not None:
        cmd += ["--replay", str(args.replay)]
    if args.self_test:
        r = subprocess.run(cmd + ["--self-test"], capture_output=True, text=True, timeout=args.seconds + HANG)
        if "FINDING" in r.stdout and "inputs in other layouts give" in r.stdout:
            print("fuzz_python: self-test: the planted wrong answer was found")
            return 0
        print(f"fuzz_python: self-test FAILED: the planted wrong answer went unseen\n{r.stdout}{r.stderr[-4000:]}")
        return 1
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.seconds + HANG,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        print(f"fuzz_python: FINDING: no answer {HANG} s past the time; the case it was in:\n"
              f"{log.read_text() if log.exists() else '?'}\n{out[-4000:]}")
        return 1
    sys.stdout.write(r.stdout)
    report = [w for w in SANITIZER if w in r.stderr]
    if r.returncode != 0 or report:
        if "FINDING" not in r.stdout:
            print(f"fuzz_python: FINDING: the child exited with status {r.returncode}"
                  f"{' and a sanitizer report' if report else ''}; the case it was in:\n"
                  f"{log.read_text() if log.exists() else '?'}")
        print(r.stderr[-8000:])
        (keep / "stderr.txt").write_text(r.stderr)
        print(f"fuzz_python: kept in {keep}; replay a case with --replay CASE_SEED")
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    ap.add_argument("--threads", type=int, default=4, help="most Python threads calling one kernel at once")
    ap.add_argument("--replay", type=int, help="run the one case of this case seed")
    ap.add_argument("--keep", help="where findings go (default: a temporary folder)")
    ap.add_argument("--self-test", action="store_true",
                    help="plant a wrong answer (an input changed in one layout) and check that it is found")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--log", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args)
    print(f"fuzz_python: seed {args.seed}, {args.seconds:.0f} s, library {os.environ.get('ATHENE_LIBRARY', 'installed')}",
          flush=True)
    return parent(args)


if __name__ == "__main__":
    sys.exit(main())
