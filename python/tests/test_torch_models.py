"""Models nobody here wrote, compiled with backend="athene" against eager: torchvision's resnet18
and transformers' GPT-2 (a small config, random weights, eval), every kernel that is not an
extern one (mm, convolution) through athene; a DDP training step on 2 gloo processes; and a
hand-written athene kernel registered as a torch op (athene.torch.register_op) inside a
compiled model."""

import os
import socket
import tempfile

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import athene
import athene.torch as at
from torch._inductor import config as inductor_config
from torch._inductor.utils import run_and_get_code


# a private Inductor cache for this module's compiles (conftest.py)
pytestmark = pytest.mark.usefixtures("private_inductor_cache")


def through_athene(fn, *args, **compile_kw):
    """fn compiled with athene (codegen runs): its result, after asserting that the generated
    code has no Inductor C++ kernel, that athene kernels ran and that no graph fell back."""
    torch._dynamo.reset()
    before = at.stats()
    with inductor_config.patch(fx_graph_cache=False):
        out, codes = run_and_get_code(torch.compile(fn, backend="athene", **compile_kw), *args)
    code = "\n".join(codes)
    after = at.stats()
    assert after["fallbacks"] == before["fallbacks"], "a graph fell back to Inductor's C++ backend"
    assert "cpp_fused" not in code and "async_compile.cpp" not in code, "an Inductor C++ kernel in the graph"
    assert after["calls"] > before["calls"], "no athene kernel ran"
    return out, code


def close_relative(got, want, rel):
    """Every element within rel of the largest magnitude of want."""
    err = (got - want).abs().max().item()
    scale = want.abs().max().item()
    assert err <= rel * scale, f"max error {err:.3g} against max |eager| {scale:.3g}: {err / scale:.3g} relative"


def test_resnet18():
    torchvision = pytest.importorskip("torchvision", reason="torchvision is not installed")
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None).eval()
    x = torch.randn(1, 3, 64, 64)
    with torch.no_grad():
        want = model(x)
        got, code = through_athene(model, x)
    assert "extern_kernels.convolution" in code or "aten.convolution" in code  # the convs stay extern
    close_relative(got, want, 1e-4)


def test_gpt2(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # everything is built here: nothing to fetch
    transformers = pytest.importorskip("transformers", reason="transformers is not installed")
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=128, n_positions=64, n_embd=64, n_layer=2, n_head=4)
    model = transformers.GPT2LMHeadModel(config).eval()
    ids = torch.randint(0, config.vocab_size, (2, 24))

    def logits(i):
        return model(input_ids=i).logits

    with torch.no_grad():
        want = logits(ids)
        got, _ = through_athene(logits, ids)
    close_relative(got, want, 1e-4)


# ---- DDP: one training step on 2 gloo processes, compiled by athene against eager

def _small_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4))


def _ddp_rank(rank, world, port, out_dir):
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    import athene.torch as at_child

    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(out_dir, f"cache{rank}")
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    try:
        torch.manual_seed(100 + rank)  # each rank its own batch
        x, target = torch.randn(8, 16), torch.randn(8, 4)
        result = {}
        for name in ("eager", "athene"):
            model = _small_model()
            # the model compiled by athene inside DDP (DDP's bucketed all-reduce runs in its hooks)
            ddp = DDP(torch.compile(model, backend="athene") if name == "athene" else model)
            opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
            loss = F.mse_loss(ddp(x), target)
            loss.backward()
            grads = [p.grad.clone() for p in ddp.parameters()]
            opt.step()
            result[name] = {"loss": loss.detach(), "grads": grads,
                            "weights": [p.detach().clone() for p in ddp.parameters()]}
        result["stats"] = at_child.stats()
        torch.save(result, os.path.join(out_dir, f"rank{rank}.pt"))
    finally:
        dist.destroy_process_group()


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ddp_training_step():
    import torch.distributed as dist
    import torch.multiprocessing as mp

    # the pinned CPU torch (requirements-torch.txt) ships gloo: without it the step cannot run
    assert dist.is_available() and dist.is_gloo_available(), "this torch has no gloo backend"
    world = 2
    with tempfile.TemporaryDirectory() as out_dir:
        ctx = mp.get_context("spawn")
        port = _free_port()
        procs = [ctx.Process(target=_ddp_rank, args=(r, world, port, out_dir)) for r in range(world)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout=300)
        alive = [p for p in procs if p.is_alive()]
        for p in alive:
            p.kill()
            p.join()
        assert not alive, "a DDP process did not finish within 300 s"
        assert [p.exitcode for p in procs] == [0] * world, [p.exitcode for p in procs]
        res = [torch.load(os.path.join(out_dir, f"rank{r}.pt")) for r in range(world)]
    for r in res:
        assert r["stats"]["fallbacks"] == 0 and r["stats"]["calls"] > 0, r["stats"]
        torch.testing.assert_close(r["athene"]["loss"], r["eager"]["loss"])
        torch.testing.assert_close(r["athene"]["grads"], r["eager"]["grads"])
        torch.testing.assert_close(r["athene"]["weights"], r["eager"]["weights"])
    # the gradients were averaged across the ranks (their batches differ, their gradients do not)
    assert not torch.equal(res[0]["eager"]["loss"], res[1]["eager"]["loss"])
    torch.testing.assert_close(res[0]["athene"]["grads"], res[1]["athene"]["grads"])


# ---- a hand-written kernel as a torch op

SRC = """
kernel scaled_rownorm(x: f32[N, D], w: f32[D]) -> (y: f32[N, D], ss: f32[N]) {
    let s[n] = sum(d: x[n, d] * x[n, d])
    y[n, d] = x[n, d] * w[d] * rsqrt(s[n] / f32(D) + 1e-6)
    ss[n] = s[n]
}
"""
_mod = athene.compile(SRC)
rownorm = at.register_op("athene_test::scaled_rownorm", _mod.scaled_rownorm)


def rownorm_ref(x, w):
    s = (x * x).sum(-1)
    return x * w * torch.rsqrt(s[:, None] / x.shape[1] + 1e-6), s


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.w = nn.Parameter(torch.rand(d) + 0.5)

    def forward(self, x):
        y, ss = torch.ops.athene_test.scaled_rownorm(F.silu(self.lin(x)), self.w)
        return y.tanh() * 2 + ss[:, None].sqrt()


def test_register_op_eager():
    x, w = torch.randn(6, 10), torch.randn(10)
    y, ss = rownorm(x, w)
    ry, rss = rownorm_ref(x, w)
    torch.testing.assert_close(y, ry)
    torch.testing.assert_close(ss, rss)
    y2, _ = torch.ops.athene_test.scaled_rownorm(x.t().contiguous().t(), w)  # strided input
    torch.testing.assert_close(y2, ry)


@pytest.mark.parametrize("backend", ["athene", "inductor"])
def test_register_op_in_compiled_model(backend):
    torch.manual_seed(0)
    model = Block(32).eval()
    x = torch.randn(8, 32)
    with torch.no_grad():
        want = model(x)
        if backend == "athene":
            got, code = through_athene(model, x, fullgraph=True)
        else:
            torch._dynamo.reset()
            with inductor_config.patch(fx_graph_cache=False):
                got, codes = run_and_get_code(torch.compile(model, backend=backend, fullgraph=True), x)
            code = "\n".join(codes)
    assert "athene_test.scaled_rownorm" in code, "the registered op is not called by the compiled graph"
    torch.testing.assert_close(got, want)


def test_register_op_fake_shapes_and_errors():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        y, ss = rownorm(torch.empty(5, 7), torch.empty(7))
        assert y.shape == (5, 7) and ss.shape == (5,) and y.dtype == torch.float32
    with pytest.raises(RuntimeError, match="dim 0 of input 'w' is 3"):
        rownorm(torch.randn(4, 7), torch.randn(3))
    with pytest.raises(TypeError, match="athene.Kernel"):
        at.register_op("athene_test::bad", SRC)
    with pytest.raises(ValueError, match="namespace::op"):
        at.register_op("not a name", _mod.scaled_rownorm)
    out_only = athene.compile("kernel fill(x: f32[N]) -> (y: f32[M]) {\n    y[i] = 1.0\n}\n")
    with pytest.raises(ValueError, match="size symbol M"):
        at.register_op("athene_test::fill", out_only.fill)
    fill = at.register_op("athene_test::fill", out_only.fill, sizes={"M": 3})
    torch.testing.assert_close(fill(torch.randn(2)), torch.ones(3))
    with pytest.raises(ValueError, match="athene_test::fill is already registered"):
        at.register_op("athene_test::fill", out_only.fill, sizes={"M": 4})
    with pytest.raises(ValueError, match="aten::add is already registered"):
        at.register_op("aten::add", _mod.scaled_rownorm)
