#!/usr/bin/env python3
"""Mutation fuzzer of the command line (make fuzz; CI runs it under ASan+UBSan).

    python3 tests/fuzz_cli.py ATHENE [--seconds S] [--runs N] [--seed SEED] [--keep DIR]

Takes every kernel file in examples/ and tests/diag/, mutates it (byte flips, deletions,
duplicated and swapped spans, numbers replaced by values at the 64-bit limits, lines spliced in
from other files) and runs `check` and `explain` (either target) on it with sizes drawn from
small and huge values, and `run` (either backend, or --check) with small sizes when no literal
in the file has more than 3 digits (the interpreter under ASan takes minutes over the full-size
examples). A finding is an exit status other than 0, 1 and 2, a hang (more than 20 s), an
internal error, a sanitizer report, an error without a location (a bare "error: "; the tool's
own messages start with "athene: " and name the flag or file they are about), or, with
--check, the native executor and the reference disagreeing (in an output beyond tolerance, or
one failing where the other does not, or failing differently). Findings
are written to --keep (default: a temporary folder) with the command that shows them; the exit
status is 1 when there was any. Standard library only.
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SIZES = ["0", "1", "2", "3", "4", "7", "8", "16", "64", "100", "1000", "65536", "2147483648", "3037000499",
         "4294967297", "1099511627776", "4611686018427387904", "9223372036854775806", "9223372036854775807"]
NUMBERS = SIZES + ["-1", "-9223372036854775808", "9223372036854775808", "1e308", "0.5", "-0"]
SYMBOLS = ["N", "D", "V", "S", "B", "M", "K"]
HANG = 20
UNLOCATED = re.compile(r"^(error|warning): ", re.M)  # what a diagnostic without a position starts with


def mutate(rng, text, others):
    b = bytearray(text.encode())
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        if not b:
            b = bytearray(b"kernel")
        i = rng.randrange(len(b))
        if op == 0:  # flip a byte
            b[i] = rng.randrange(1, 256)
        elif op == 1:  # delete a span
            del b[i:i + rng.randint(1, 16)]
        elif op == 2:  # duplicate a span
            j = rng.randrange(len(b))
            b[j:j] = b[i:i + rng.randint(1, 64)]
        elif op == 3:  # a number at the limits
            nums = [m.span() for m in re.finditer(rb"\d+", b)]
            if nums:
                s, e = rng.choice(nums)
                b[s:e] = rng.choice(NUMBERS).encode()
        elif op == 4:  # a line from another file
            lines = rng.choice(others).splitlines(keepends=True)
            if lines:
                b[i:i] = rng.choice(lines).encode()
        elif op == 5:  # a punctuation token
            b[i:i] = rng.choice([b"(", b")", b"[", b"]", b",", b":", b"//", b"%", b"-", b"{", b"}", b"wrap("])
        else:  # swap two spans
            j = rng.randrange(len(b))
            n = rng.randint(1, 32)
            x, y = bytes(b[i:i + n]), bytes(b[j:j + n])
            if i + n <= j:
                b[j:j + n], b[i:i + n] = x, y
    return bytes(b).replace(b"\0", b" ")


def commands(rng, path, big):
    sizes = []
    for sym in rng.sample(SYMBOLS, rng.randint(0, len(SYMBOLS))):
        sizes += ["--size", f"{sym}={rng.choice(SIZES[:11] if rng.random() < 0.6 else SIZES)}"]
    yield ["check", path, *sizes]
    yield ["explain", path, *sizes, "--target", rng.choice(["cpu", "tpu"])] + (["--json"] if rng.random() < 0.3 else [])
    small = []
    for sym in SYMBOLS:
        small += ["--size", f"{sym}={rng.choice(SIZES[:9])}"]
    if not big:  # running on millions of generated elements is slow, not a finding
        yield ["run", path, *small, "--seed", str(rng.randrange(1000))] + rng.choice([[], ["--reference"], ["--check"]])


def problem(rc, out, err, cmd):
    if "--check" in cmd and ("athene: check:" in err or " FAILED: " in out):
        return "the native executor and the reference disagree"
    if rc not in (0, 1, 2):
        return f"exit status {rc}"
    for bad in ("internal error", "error: internal:", "Sanitizer", "runtime error:"):
        if bad in err:
            return f"'{bad}' in stderr"
    m = UNLOCATED.search(err)
    if m:
        return "a message with no location: " + err[m.start():].splitlines()[0]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("athene")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--runs", type=int, default=0, help="stop after this many files (0: only --seconds)")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--keep", default=None)
    args = ap.parse_args()
    args.athene = os.path.abspath(args.athene)
    files = sorted((REPO / "examples").glob("*.ath")) + sorted((REPO / "tests" / "diag").glob("*.ath"))
    texts = [f.read_text(errors="replace") for f in files]
    rng = random.Random(args.seed)
    keep = Path(args.keep or tempfile.mkdtemp(prefix="athene-fuzz-cli."))
    keep.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="athene-fuzz-work."))
    deadline = time.monotonic() + args.seconds
    runs = execs = found = 0
    while time.monotonic() < deadline and (not args.runs or runs < args.runs):
        src = mutate(rng, rng.choice(texts), texts)
        path = work / "case.ath"
        path.write_bytes(src)
        runs += 1
        big = any(len(m) > 3 for m in re.findall(rb"\d+", src))
        for cmd in commands(rng, str(path), big):
            execs += 1
            try:
                r = subprocess.run([args.athene, *cmd], capture_output=True, timeout=HANG, cwd=work,
                                   stdin=subprocess.DEVNULL)
                why = problem(r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace"), cmd)
                err = r.stderr
            except subprocess.TimeoutExpired:
                why, err = f"no answer in {HANG} s", b""
            if why:
                found += 1
                case = keep / f"finding{found}.ath"
                case.write_bytes(src)
                line = " ".join([args.athene, *[str(case) if c == str(path) else c for c in cmd]])
                (keep / f"finding{found}.txt").write_text(f"{why}\n{line}\n\n{err.decode(errors='replace')}")
                print(f"FINDING {found}: {why}\n  {line}", flush=True)
    for f in work.iterdir():
        f.unlink()
    work.rmdir()
    print(f"fuzz_cli: seed {args.seed}, {runs} mutated files, {execs} runs, {found} findings"
          + (f" (kept in {keep})" if found else ""))
    if not found and not args.keep:
        keep.rmdir()
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
