#!/usr/bin/env python3
"""Differential fuzzer of the Pallas emitter (make fuzz).

    ATHENE=build/athene python tests/pallas/fuzz_emit.py [--seconds S] [--seed SEED] [--keep DIR]
    ATHENE=build/athene python tests/pallas/fuzz_emit.py --replay CASE_SEED

Random kernels of tests/kernelgen.py with small sizes, restricted to operations whose results two
correct implementations agree on to the bit (no transcendental functions, no sums, whose
rounding depends on their order), are bound, emitted (`athene_emit`, target pallas), run in
JAX's interpreter on the CPU (interpret=True) op by op (jax.disable_jit: XLA's fusions fold
0 / x to 0 and contract a * b + c into one rounding) and compared with athene's reference interpreter
on the same inputs: integers and bools exactly, floats exactly but for NaN (any NaN for any) and
within 1e-30 absolute (a denormal flushed). A run that fails in the reference must raise
IndexError in the module (a gather index out of range) and the other way round.

A finding is a different answer, a module that does not run (an exception other than that
IndexError), an error in one and not the other, an internal error or a crash. A refusal of the
emitter (`cannot express ...`, a located error) is counted, not a finding. Each case has its own
seed: --replay runs one. Exit status 1 on any finding, with the kernel, sizes and inputs kept.
"""

import argparse
import importlib.util
import os
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

# What is compared is the module as written, so XLA's liberties with floats are off: its excess
# precision would keep f32 where the module rounds to bf16 and back; its algebraic simplifier
# rewrites (a / b) / c as a / (b * c) and f64(bool) * x as a select (+0.0 where the product is
# -0.0); and its backend contracts a * b + c into one rounding (an FMA) unless unoptimised
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_allow_excess_precision=false"
                           " --xla_disable_hlo_passes=algsimp --xla_backend_optimization_level=0").strip()

import pallas_cases  # noqa: E402,F401  (JAX on the CPU with x64, as the Pallas tests run it)

import jax  # noqa: E402
import numpy as np  # noqa: E402

import athene_lib as A  # noqa: E402
import kernelgen as G  # noqa: E402


class Finding(Exception):
    pass


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return False
    if want.dtype.kind in "biu":
        return np.array_equal(got, want)
    g, w = got.astype(np.float64), want.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(w)
    with np.errstate(invalid="ignore"):
        close = (g == w) | (np.abs(g - w) <= 1e-30) | both_nan
    return bool(close.all())


def one_case(seed, work, stats):
    rng = random.Random(seed)
    g = G.Gen(rng, exact=True)
    src = work / "k.ath"
    src.write_text(g.source)
    ctx = A.LIB.athene_create()
    if A.LIB.athene_load(ctx, str(src).encode(), g.source.encode()):
        err = A.LIB.athene_errors(ctx).decode()
        if "internal" in err:
            raise Finding(f"an internal error: {err}")
        return "compile error"
    try:
        k = A.Kernel(ctx, A.LIB.athene_kernel_at(ctx, 0), sizes=g.sizes)
    except RuntimeError as e:
        if "internal" in str(e):
            raise Finding(f"an internal error: {e}")
        return "compile error"
    try:
        text = A.emit([k])
    except RuntimeError as e:
        if "internal" in str(e) or "Sanitizer" in str(e):
            raise Finding(f"an internal error: {e}")
        return "refused"
    py = work / f"k_{seed}.py"
    py.write_text(text)
    spec = importlib.util.spec_from_file_location(f"fuzz_emit_{seed}", py)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    logical = []
    for i in range(k.nin):
        p = k.params[i]
        shape = tuple(p.shape[d] for d in range(p.rank))
        name = p.name.decode()
        dt = next(d for n, d, _ in g.inputs if n == name)
        logical.append(G.values(rng, dt, shape, name, g.sizes))
    storages = [k.storage(i, a) if k.declares_layout(i) else np.ascontiguousarray(a).reshape(-1)
                for i, a in enumerate(logical)]
    ref = k.reference(storages)
    args = [s if k.declares_layout(i) else a for i, (s, a) in enumerate(zip(storages, logical))]
    try:
        with jax.disable_jit():  # op by op: no fusion for XLA to fold across (0 / x as 0, say)
            out = mod.k(*args, interpret=True)
    except IndexError as e:
        if not isinstance(ref, str):
            raise Finding(f"the module raised IndexError ({e}) where the reference ran")
        return "both failed"
    except Exception as e:
        raise Finding(f"the module does not run: {type(e).__name__}: {e}\n{traceback.format_exc()[-3000:]}")
    if isinstance(ref, str):
        raise Finding(f"the reference failed ({ref.strip()}) where the module ran")
    outs = out if isinstance(out, tuple) else (out,)
    for j, (o, r) in enumerate(zip(outs, ref)):
        i = k.nin + j
        want = k.logical(i, r)
        got = k.logical(i, np.asarray(o).reshape(-1))  # as the Pallas tests read outputs
        if got.dtype != want.dtype and not (got.dtype.kind == want.dtype.kind == "V"):
            got = got.astype(want.dtype)
        if not same(got, want):
            bad = np.flatnonzero(~np.isclose(np.asarray(got, np.float64).reshape(-1),
                                             np.asarray(want, np.float64).reshape(-1), rtol=0, atol=1e-30,
                                             equal_nan=True))[:6]
            raise Finding(f"output {k.params[i].name.decode()} differs at flat {bad.tolist()}: module "
                          f"{np.asarray(got).reshape(-1)[bad].tolist()}, reference {np.asarray(want).reshape(-1)[bad].tolist()}"
                          f"\ninputs {[a.tolist() for a in logical]}")
    return "agreed"


def main():
    import warnings

    warnings.simplefilter("ignore")  # NumPy's and JAX's casts of edge values
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    ap.add_argument("--replay", type=int, help="run the one case of this case seed")
    ap.add_argument("--keep", help="where findings go (default: a temporary folder)")
    args = ap.parse_args()
    keep = Path(args.keep or tempfile.mkdtemp(prefix="fuzz_emit_"))
    keep.mkdir(parents=True, exist_ok=True)
    print(f"fuzz_emit: seed {args.seed}, {args.seconds:.0f} s, library next to {os.environ.get('ATHENE', 'build/athene')}",
          flush=True)
    start, n, stats = time.time(), 0, {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        while True:
            if args.replay is not None:
                if n:
                    break
                seed = args.replay
            elif time.time() - start >= args.seconds:
                break
            else:
                seed = args.seed * 1_000_003 + n
            n += 1
            try:
                what = one_case(seed, work, stats)
            except Finding as f:
                g = G.Gen(random.Random(seed), exact=True)
                (keep / f"finding_{seed}.ath").write_text(g.source)
                print(f"fuzz_emit: FINDING in case {seed} (sizes {g.sizes}):\n{g.source}{f}\n"
                      f"kept in {keep}; replay with --replay {seed}")
                return 1
            stats[what] = stats.get(what, 0) + 1
    print(f"fuzz_emit: {sum(stats.values())} kernels in {time.time() - start:.0f} s, no finding: "
          + ", ".join(f"{v} {k}" for k, v in sorted(stats.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
