"""Compiled statements under torch.compile(backend="athene"): with ATHENE_JIT=sync every kernel's
first run waits for the C compiler, so the models and programs below run through compiled code
from their first call, and must still match eager (the rest of the suite runs with the JIT off:
the register machine, which runs whatever the generator declines). Also: a missing compiler is
said once and changes no result, and a second process loads the compiled code from the cache."""

import os
import subprocess
import sys
import textwrap

import pytest
import torch
import torch.nn.functional as F

import athene
from test_torch_backend import GPTBlock, LlamaLayer, R, check

pytestmark = pytest.mark.usefixtures("private_inductor_cache")


@pytest.fixture
def jit(monkeypatch, tmp_path):
    monkeypatch.setenv("ATHENE_JIT", "sync")
    monkeypatch.setenv("ATHENE_CACHE_DIR", str(tmp_path))
    return tmp_path


PROGRAMS = {
    "softmax": (lambda x: torch.softmax(x, -1), lambda: (R(64, 100),)),
    "causal_softmax": (lambda x: torch.softmax(x.masked_fill(torch.ones(32, 32, dtype=torch.bool).triu(1), float("-inf")), -1),
                       lambda: (R(4, 32, 32),)),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b), lambda: (R(33, 70), R(70), R(70))),
    "gelu": (lambda x: F.gelu(x) + torch.tanh(x) * torch.sigmoid(x), lambda: (R(3, 1000),)),
    "ints": (lambda a, b: (a * b + a // 3 - b % 5, (a > b).float()), lambda: (torch.randint(-50, 50, (300,)),
                                                                              torch.randint(1, 50, (300,)))),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_compiled(jit, name):
    fn, make = PROGRAMS[name]
    torch.manual_seed(0)
    before = athene.wait_compiled()
    check(fn, *make(), rtol=1.3e-6, atol=1e-5)
    assert athene.wait_compiled() > before, "no statement ran compiled"
    assert any(p.suffix == ".so" for p in (jit / "jit").iterdir())


@pytest.mark.parametrize("name", ["gpt_block", "llama_layer"])
def test_models_compiled(jit, name):
    torch.manual_seed(0)
    model, x = {"gpt_block": lambda: (GPTBlock(), R(2, 32, 64)), "llama_layer": lambda: (LlamaLayer(), R(2, 32, 64))}[name]()
    before = athene.wait_compiled()
    with torch.no_grad():
        check(model.eval(), x, rtol=1e-4, atol=1e-4)
    assert athene.wait_compiled() > before


SCRIPT = textwrap.dedent("""
    import athene, numpy as np
    k = athene.compile('''kernel f(x: f32[1000]) -> (y: f32[1000]) {
        let s = sum(i < 1000: x[i] * x[i])
        y[i] = exp(x[i]) / s
    }''')
    x = np.linspace(-3, 3, 1000, dtype=np.float32)
    y = k.f(x)
    print(athene.wait_compiled(), y.sum().item(), y[::97].tolist())
""")


def run_script(env):
    p = subprocess.run([sys.executable, "-c", SCRIPT], env={**os.environ, **env}, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return p


def test_missing_compiler_is_said_once_and_changes_nothing(tmp_path):
    base = {"ATHENE_CACHE_DIR": str(tmp_path)}
    off = run_script({**base, "ATHENE_JIT": "0"})
    gone = run_script({**base, "ATHENE_JIT": "sync", "ATHENE_CC": str(tmp_path / "no-such-cc")})
    assert gone.stdout.split(maxsplit=1)[1] == off.stdout.split(maxsplit=1)[1]  # the same values
    assert gone.stdout.split()[0] == "0"  # nothing ran compiled
    lines = [ln for ln in gone.stderr.splitlines() if "athene:" in ln]
    assert len(lines) == 1 and "cannot run the C compiler" in lines[0] and "no-such-cc" in lines[0], gone.stderr


def test_compiled_results_and_the_cache(tmp_path):
    base = {"ATHENE_CACHE_DIR": str(tmp_path)}
    off = run_script({**base, "ATHENE_JIT": "0"})
    first = run_script({**base, "ATHENE_JIT": "sync"})
    objects = sorted(p.name for p in (tmp_path / "jit").glob("*.so"))
    second = run_script({**base, "ATHENE_JIT": "sync"})
    assert int(first.stdout.split()[0]) > 0 and int(second.stdout.split()[0]) > 0
    assert first.stdout.split(maxsplit=1)[1] == off.stdout.split(maxsplit=1)[1] == second.stdout.split(maxsplit=1)[1]
    assert sorted(p.name for p in (tmp_path / "jit").glob("*.so")) == objects  # loaded, not compiled again
    assert not list((tmp_path / "jit").glob("*.c"))  # no source left behind
