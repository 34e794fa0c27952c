#!/usr/bin/env python3
"""PyTorch programs compiled by athene's backend beside its peers, in one process and one run.

For each program it prints the steady per-call time and the first-call (compile) time of:

  eager      PyTorch eager
  inductor   torch.compile, the default backend (Inductor's C++ kernels)
  halide     torch.compile with options={"cpu_backend": "halide"} (when `halide` is installed:
             bench/requirements-torch-peers.txt)
  pallas     torch.compile with options={"cpu_backend": "pallas"} (Inductor's Pallas backend,
             when jax is installed; it runs every kernel in JAX's interpreter on a CPU)
  athene     torch.compile(backend="athene")
  athene-pallas  torch.compile(backend="athene", options={"target": "pallas"}): athene's kernels
             as its emitted Pallas modules, jitted once per shape (JAX's interpreter on a CPU)

and athene's ratio to each (peer time / athene time: above 1 is athene faster), with GB/s for
the programs that only move data (bytes read + written once each), and, when both run,
pallas / athene-pallas: the two Pallas routes compared (the seed recompiles on every call).
The programs are the large cases of the PyTorch backend's issue: the 2048² transpose, the five
3-D permutations of (2, 1152, 2048), the 23 4-D permutations of (2, 4, 128, 2048), a (2048, 128)
embedding gather with 4096 indices, softmax / RMSNorm / LayerNorm on (8192, 1024), RoPE at
(4096, 1024), a one-kernel graph of 64 elements (the per-call overhead), the models: a 3-layer
MLP, a nanoGPT block and a Llama layer, and small programs like the seed Pallas backend's own
tests (`seed_*`: pointwise, a strided slice, a transpose, a gather, a reduction, a softmax).

Each program is compiled afresh per peer (torch._dynamo.reset(), a private Inductor cache
directory, so the first call measures a real compile: the same cache settings for all). The
peers of a program take turns in each timed round, so a busy moment of the machine falls on
all of them alike; each keeps its best round. Each peer's first result is compared with
eager's (torch.testing.assert_close, float32 tolerances x10); a mismatch is printed in place of
its time. Nothing here is part of make test.

    .venv/bin/python bench/torch_peers.py [--only NAME[,PATTERN...]] [--peers eager,inductor,...]
                                          [--min-time S] [--repeat N] [--quick]

--quick runs every program at a small shape (a smoke test of the script).
"""
import argparse
import fnmatch
import itertools
import math
import os
import statistics
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "python"))


# ---- the programs ----------------------------------------------------------------------------

class Program:
    def __init__(self, name, fn, make, moves=None, model=None):
        self.name, self.fn, self.make, self.moves, self.model = name, fn, make, moves, model


def rms_norm(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def rope_halves(x, cos, sin):
    h = x.shape[-1] // 2
    x1, x2 = x[..., :h], x[..., h:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


class MLP(torch.nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.l1, self.l2, self.l3 = (torch.nn.Linear(d, d) for _ in range(3))

    def forward(self, x):
        return self.l3(torch.relu(self.l2(torch.relu(self.l1(x)))))


class GPTBlock(torch.nn.Module):
    """nanoGPT's block: pre-LayerNorm causal self-attention and a GELU MLP."""

    def __init__(self, embd=64, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = torch.nn.LayerNorm(embd), torch.nn.LayerNorm(embd)
        self.attn, self.proj = torch.nn.Linear(embd, 3 * embd), torch.nn.Linear(embd, embd)
        self.fc, self.out = torch.nn.Linear(embd, 4 * embd), torch.nn.Linear(4 * embd, embd)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.attn(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)
        att = att.masked_fill(torch.ones(t, t, dtype=torch.bool).tril().logical_not(), float("-inf"))
        y = (torch.softmax(att, dim=-1) @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class LlamaLayer(torch.nn.Module):
    """A Llama decoder layer: RMSNorm, attention with rotary embeddings (halves), SwiGLU."""

    def __init__(self, dim=64, heads=2, head=32, ffn=256):
        super().__init__()
        self.heads, self.head = heads, head
        self.n1, self.n2 = torch.nn.Parameter(torch.ones(dim)), torch.nn.Parameter(torch.ones(dim))
        self.wq, self.wk, self.wv = (torch.nn.Linear(dim, heads * head, bias=False) for _ in range(3))
        self.wo = torch.nn.Linear(heads * head, dim, bias=False)
        self.w1, self.w3 = torch.nn.Linear(dim, ffn, bias=False), torch.nn.Linear(dim, ffn, bias=False)
        self.w2 = torch.nn.Linear(ffn, dim, bias=False)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        h = rms_norm(x, self.n1)
        q, k, v = (w(h).view(b, t, self.heads, self.head).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
        q, k = rope_halves(q, cos, sin), rope_halves(k, cos, sin)
        att = torch.softmax((q @ k.transpose(-2, -1)) / math.sqrt(self.head) +
                            torch.full((t, t), float("-inf")).triu(1), dim=-1)
        x = x + self.wo((att @ v).transpose(1, 2).reshape(b, t, -1))
        h = rms_norm(x, self.n2)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


def programs(quick):
    s = (lambda big, small: small if quick else big)
    out = []
    n = s(2048, 64)
    out.append(Program("transpose_2048", lambda x: x.t().contiguous(), lambda: (torch.randn(n, n),), moves=2))
    shape3 = s((2, 1152, 2048), (2, 12, 16))
    for p in itertools.permutations(range(3)):
        if p != (0, 1, 2):
            out.append(Program("perm3_" + "".join(map(str, p)), lambda x, p=p: x.permute(*p).contiguous(),
                               lambda: (torch.randn(*shape3),), moves=2))
    shape4 = s((2, 4, 128, 2048), (2, 4, 8, 16))
    for p in itertools.permutations(range(4)):
        if p != (0, 1, 2, 3):
            out.append(Program("perm4_" + "".join(map(str, p)), lambda x, p=p: x.permute(*p).contiguous(),
                               lambda: (torch.randn(*shape4),), moves=2))
    v, d, k = s(2048, 64), 128, s(4096, 64)
    out.append(Program("gather_2048x128", lambda t, i: t[i],
                       lambda: (torch.randn(v, d), torch.randint(-v, v, (k,))), moves=None))
    r, c = s(8192, 32), s(1024, 64)
    out.append(Program("softmax", lambda x: torch.softmax(x, -1), lambda: (torch.randn(r, c),)))
    out.append(Program("rmsnorm", rms_norm, lambda: (torch.randn(r, c), torch.randn(c))))
    out.append(Program("layernorm", lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b),
                       lambda: (torch.randn(r, c), torch.randn(c), torch.randn(c))))
    rr, rc = s(4096, 32), s(1024, 64)
    out.append(Program("rope", rope_halves, lambda: (torch.randn(rr, rc), torch.randn(rr, rc // 2),
                                                     torch.randn(rr, rc // 2))))
    out.append(Program("tiny_64", lambda x: x * 2 + 1, lambda: (torch.randn(64),)))
    torch.manual_seed(0)
    mlp, gpt, llama = MLP().eval(), GPTBlock().eval(), LlamaLayer().eval()
    out.append(Program("mlp", mlp, lambda: (torch.randn(32, 32),), model=mlp))
    out.append(Program("nanogpt_block", gpt, lambda: (torch.randn(2, 32, 64),), model=gpt))
    out.append(Program("llama_layer", llama, lambda: (torch.randn(2, 32, 64), torch.randn(32, 16),
                                                      torch.randn(32, 16)), model=llama))
    # small programs like those of the seed Pallas backend's tests (its own sizes: the same at --quick)
    out.append(Program("seed_add", lambda a, b: a + b, lambda: (torch.randn(1024), torch.randn(1024))))
    out.append(Program("seed_sin_mul", lambda a, b: a.sin() * b, lambda: (torch.randn(32, 32), torch.randn(32, 32))))
    out.append(Program("seed_strided", lambda a: a[::2] * 2, lambda: (torch.randn(64),)))
    out.append(Program("seed_transpose", lambda a: a.t().contiguous() + 1, lambda: (torch.randn(16, 32),)))
    out.append(Program("seed_gather", lambda a, i: a[i] * 2, lambda: (torch.randn(16, 8), torch.tensor([3, -1, 7, 0]))))
    out.append(Program("seed_sum", lambda a: a.sum(-1), lambda: (torch.randn(16, 64),)))
    out.append(Program("seed_softmax", lambda a: torch.softmax(a, -1), lambda: (torch.randn(8, 128),)))
    return out


# ---- the peers -------------------------------------------------------------------------------

def available(name):
    if name == "halide":
        try:
            import halide  # noqa: F401
        except ImportError:
            return "halide is not installed (bench/requirements-torch-peers.txt)"
    if name == "pallas":
        try:
            import jax  # noqa: F401
        except ImportError:
            return "jax is not installed"
    if name == "athene-pallas":
        try:
            import jax  # noqa: F401
            import athene.torch  # noqa: F401
        except ImportError as e:
            return f"jax or athene.torch does not import: {e}"
    if name == "athene":
        try:
            import athene.torch  # noqa: F401
        except ImportError as e:
            return f"athene.torch does not import: {e}"
    return None


def compiled(peer, fn):
    if peer == "eager":
        return fn
    torch._dynamo.reset()
    if peer == "inductor":
        return torch.compile(fn)
    if peer in ("halide", "pallas"):
        return torch.compile(fn, options={"cpu_backend": peer})
    if peer == "athene":
        return torch.compile(fn, backend="athene")
    if peer == "athene-pallas":
        return torch.compile(fn, backend="athene", options={"target": "pallas"})
    raise ValueError(peer)


def timed(f, args):
    t = time.perf_counter()
    y = f(*args)
    return time.perf_counter() - t, y


def run(progs, peers, min_time, repeat):
    width = max(len(p.name) for p in progs)
    head = f"{'program':{width}}  " + "  ".join(f"{p + ' ms':>12}" for p in peers)
    head += "  " + "  ".join(f"{'/' + p:>9}" for p in peers if p != "athene")
    both = "pallas" in peers and "athene-pallas" in peers
    if both:
        head += f"  {'pallas/athene-pallas':>20}"
    print(head + "   first call (s): " + " ".join(peers))
    ratios = {p: {} for p in peers}
    ratios["pallas/athene-pallas"] = {}
    for prog in progs:
        args = prog.make()
        with torch.no_grad():
            want = prog.fn(*args)
        fns, first, bad = {}, {}, {}
        for peer in peers:
            try:
                with torch.no_grad():
                    fns[peer] = compiled(peer, prog.fn)
                    first[peer], got = timed(fns[peer], args)
                torch.testing.assert_close(got, want, rtol=1.3e-5, atol=1e-4)
            except Exception as e:  # a peer that fails is reported, not fatal
                bad[peer] = f"{type(e).__name__}: {str(e).splitlines()[0][:60]}" if str(e) else type(e).__name__
        if any(p.startswith("athene") for p in peers):
            import athene
            athene.wait_compiled()  # steady state: athene's statements compiled in the background are loaded
        best = {p: math.inf for p in peers}
        t0, rounds = time.perf_counter(), 0
        live = [p for p in peers if p not in bad]
        while rounds < repeat or time.perf_counter() - t0 < min_time:
            order = live[rounds % len(live):] + live[:rounds % len(live)] if live else []
            for peer in order:
                if peer == "pallas" and rounds >= 2:  # ~0.1-0.4 s a call: two rounds are enough
                    continue
                with torch.no_grad():
                    best[peer] = min(best[peer], timed(fns[peer], args)[0])
            rounds += 1
            if not live:
                break
        cells = []
        for peer in peers:
            cells.append(f"{'FAIL':>12}" if peer in bad else f"{best[peer] * 1e3:12.4f}")
        for peer in peers:
            if peer == "athene":
                continue
            if peer in bad or "athene" in bad or "athene" not in peers:
                cells.append(f"{'-':>9}")
            else:
                r = best[peer] / best["athene"]
                ratios[peer][prog.name] = r
                cells.append(f"{r:9.2f}")
        if both:
            if "pallas" in bad or "athene-pallas" in bad:
                cells.append(f"{'-':>20}")
            else:
                r = best["pallas"] / best["athene-pallas"]
                ratios["pallas/athene-pallas"][prog.name] = r
                cells.append(f"{r:20.1f}")
        line = f"{prog.name:{width}}  " + "  ".join(cells)
        line += "   " + " ".join("-" if p in bad else f"{first[p]:.2f}" for p in peers)
        print(line, flush=True)
        for peer, why in bad.items():
            print(f"    {peer}: {why}")
    return ratios


def summary(ratios):
    moves = lambda n: n.startswith(("transpose", "perm", "gather"))
    for peer, rs in ratios.items():
        if not rs:
            continue
        groups = {"data movement": [r for n, r in rs.items() if moves(n)],
                  "pointwise and norms": [r for n, r in rs.items() if n in ("softmax", "rmsnorm", "layernorm", "rope")],
                  "models": [r for n, r in rs.items() if n in ("mlp", "nanogpt_block", "llama_layer")]}
        parts = [f"{g} median {statistics.median(v):.2f} min {min(v):.2f}" for g, v in groups.items() if v]
        if peer == "pallas/athene-pallas":
            seed = [r for n, r in rs.items() if n.startswith("seed_")]
            parts = [f"all median {statistics.median(rs.values()):.1f} min {min(rs.values()):.1f}"]
            if seed:
                parts.append(f"the seed's programs median {statistics.median(seed):.1f} min {min(seed):.1f}")
            print("pallas (the seed) against athene-pallas, per call after the first: " + "; ".join(parts))
            continue
        print(f"athene against {peer}: " + "; ".join(parts))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="program names or shell patterns, comma-separated")
    ap.add_argument("--peers", default="eager,inductor,halide,pallas,athene,athene-pallas")
    ap.add_argument("--min-time", type=float, default=1.0, help="seconds of timed rounds per program")
    ap.add_argument("--repeat", type=int, default=5, help="timed rounds per program at least")
    ap.add_argument("--quick", action="store_true", help="small shapes: a smoke test")
    a = ap.parse_args()
    peers = []
    for p in a.peers.split(","):
        why = available(p)
        if why:
            print(f"# {p} left out: {why}")
        else:
            peers.append(p)
    progs = programs(a.quick)
    if a.only:
        pats = a.only.split(",")
        progs = [p for p in progs if any(fnmatch.fnmatch(p.name, q) for q in pats)]
    cache = tempfile.mkdtemp(prefix="torch-peers-")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
    torch.set_num_threads(os.cpu_count() or 1)
    print(f"# torch {torch.__version__}, {torch.get_num_threads()} threads, Inductor cache {cache} (fresh)")
    summary(run(progs, peers, a.min_time, a.repeat))


if __name__ == "__main__":
    main()
