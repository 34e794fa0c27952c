"""athene's thread pool beside torch's intra-op threads, on a compiled graph that mixes both.

The graph is an MLP block, `LayerNorm(x + Linear(GELU(Linear(x))))`: its matmuls run as
Inductor's extern kernels (aten's mm/addmm, on torch's intra-op threads), its pointwise and
LayerNorm kernels through athene (on athene's pool). The two pools take turns within every call,
so each waits for the other's workers to go to sleep or fights them for the cores while they
spin.

Policies, switched between rounds in one process (the rounds interleaved, so a busy machine
slows them alike; each policy's best round counts):

- `follow`: athene's threads = torch.get_num_threads() (athene.torch's default);
- `athene=1`: athene on the calling thread alone, torch on all of its threads;
- `torch=1`: torch's matmuls on one thread, athene on torch's former count;
- `both=1`: everything on the calling thread;
- `eager`: the same module in eager PyTorch (torch's threads), for scale.

and the whole table once with athene's pool spinning before it sleeps (its default) and once
with it blocking at once (`ATHENE_POOL_SPINS=0`, each in a child process: the spin count is read
when the pool starts).

    python bench/torch_threads.py [rounds] [calls per round] [batch] [width]

Run it on a quiet machine: with other processes on the cores, the numbers move by tens of
percent from run to run and say little about the policies.
"""

import os
import subprocess
import sys
import tempfile
import time


def measure(rounds, calls, batch, width):
    import torch
    import torch.nn as nn

    import athene
    import athene.torch as at

    torch.manual_seed(0)
    n = torch.get_num_threads()

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.up = nn.Linear(width, 4 * width)
            self.down = nn.Linear(4 * width, width)
            self.norm = nn.LayerNorm(width)

        def forward(self, x):
            return self.norm(x + self.down(nn.functional.gelu(self.up(x))))

    model = Block().eval()
    x = torch.randn(batch, width)
    with torch.no_grad():
        g = torch.compile(model, backend="athene")
        ref = model(x)
        torch.testing.assert_close(g(x), ref, rtol=1e-4, atol=1e-4)
        assert at.fallbacks() == 0

        policies = {
            "follow": (n, n, g),
            "athene=1": (n, 1, g),
            "torch=1": (1, n, g),
            "both=1": (1, 1, g),
            "eager": (n, n, model),
        }
        best = {p: float("inf") for p in policies}
        for _ in range(rounds):
            for name, (tt, ta, fn) in policies.items():
                torch.set_num_threads(tt)
                athene.set_threads(ta)
                fn(x), fn(x)  # a thread count's first call plans anew
                t = time.perf_counter()
                for _ in range(calls):
                    fn(x)
                best[name] = min(best[name], (time.perf_counter() - t) / calls * 1e3)
        torch.set_num_threads(n)
    spins = os.environ.get("ATHENE_POOL_SPINS", "default")
    print(f"athene pool spins: {spins}; torch {torch.__version__}, {os.cpu_count()} CPUs, torch threads {n}, "
          f"batch {batch}, width {width}, best of {rounds} rounds of {calls} calls")
    for name, (tt, ta, _) in policies.items():
        who = "eager PyTorch" if name == "eager" else f"torch threads {tt}, athene threads {ta}"
        print(f"  {name:10s} {best[name]:8.3f} ms/call  ({who})")


def main():
    args = sys.argv[1:]
    if args[:1] == ["--child"]:
        measure(*(int(a) for a in args[1:5]))
        return
    rounds = args[0] if len(args) > 0 else "7"
    calls = args[1] if len(args) > 1 else "20"
    batch = args[2] if len(args) > 2 else "256"
    width = args[3] if len(args) > 3 else "512"
    cache = tempfile.mkdtemp(prefix="athene-threads-")  # one Inductor cache: the second child compiles nothing
    for spins in (None, "0"):
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache)
        env.pop("ATHENE_POOL_SPINS", None)
        if spins is not None:
            env["ATHENE_POOL_SPINS"] = spins
        subprocess.run([sys.executable, __file__, "--child", rounds, calls, batch, width], env=env, check=True)


if __name__ == "__main__":
    main()
