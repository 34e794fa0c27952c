"""PyTorch's op database (torch.testing._internal.common_methods_invocations.op_db): each op's
first float32 CPU sample compiled with backend="athene" against eager, every kernel through
athene, beside the same compile with Inductor's default C++ backend (the baseline).

The selection (`selected()`): every OpInfo of op_db whose CPU dtypes include float32, less
- matmul: the matrix products (`MATMUL`, and `sparse.*`);
- conv: `nn.functional.conv*` (convolutions and transposed convolutions);
- linalg: the ops of torch's `opinfo.definitions.linalg` database and `LINALG` (the
  factorizations and solvers outside `torch.linalg`);
- fft: the ops of `opinfo.definitions.fft`, `stft`;
- sort: `SORT` (sorts, order statistics, `unique`);
- random: `RANDOM` (ops whose result is drawn from torch's generator);
- `jiterator_*`: CUDA only (their sample inputs cannot be made without a GPU);
- `NOT_REPRODUCIBLE`: ops whose sample eager itself cannot reproduce (each with its reason).

`make test` runs `SAMPLE`; with ATHENE_TEST_ALL=1 (`make test-all`) every selected op. An op of
`F64_REFERENCE`, whose float32 eager kernel loses digits athene keeps, may instead match eager on
its sample in float64. Each op's
outcome with athene and with Inductor C++ must be what `ATHENE_MISSES` / `CPP_MISSES` say (an op
that starts passing must leave the list), and `test_fraction` reports the fraction of the ops
Inductor C++ passes that athene passes.
"""

import logging
import os

import pytest
import torch

import athene.torch as at
from torch._inductor import config as inductor_config
from torch._inductor.utils import run_and_get_code
from torch.utils._pytree import tree_leaves, tree_map

pytest.importorskip("expecttest", reason="torch's op database needs expecttest (requirements-torch.txt)")
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402
from torch.testing._internal.opinfo.definitions import fft as _fft_db  # noqa: E402
from torch.testing._internal.opinfo.definitions import linalg as _linalg_db  # noqa: E402

MATMUL = {"mm", "bmm", "addmm", "addmv", "addbmm", "baddbmm", "dot", "vdot", "mv", "addr", "matmul", "__rmatmul__",
          "einsum", "inner", "tensordot", "nn.functional.linear", "nn.functional.bilinear"}
LINALG = {"cholesky_inverse", "cholesky_solve", "geqrf", "lu", "lu_solve", "lu_unpack", "matrix_exp", "ormqr",
          "pinverse", "svd", "svd_lowrank", "pca_lowrank", "triangular_solve", "logdet"}
SORT = {"sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "quantile", "nanquantile",
        "unique", "unique_consecutive", "masked.median"}
RANDOM = {"bernoulli", "cauchy", "exponential", "geometric", "log_normal", "uniform", "normal", "multinomial",
          "rand_like", "randn", "randn_like", "randint", "randint_like", "nn.functional.dropout",
          "nn.functional.dropout2d", "nn.functional.dropout3d", "nn.functional.alpha_dropout",
          "nn.functional.feature_alpha_dropout", "nn.functional.rrelu", "nn.functional.fractional_max_pool2d",
          "nn.functional.fractional_max_pool3d"}
NOT_REPRODUCIBLE = {  # eager cannot reproduce its own result for these samples
    "empty": "uninitialized memory",
    "empty_like": "uninitialized memory",
    "empty_strided": "uninitialized memory",
    "empty_permuted": "uninitialized memory",
    "new_empty": "uninitialized memory",
    "new_empty_strided": "uninitialized memory",
}
_DB = {id(o) for o in _linalg_db.op_db} | {id(o) for o in _fft_db.op_db}


def full_name(op):
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def aside(op):
    """Why op is not in the sweep (None when it is)."""
    n = op.name
    if n in MATMUL or n.startswith("sparse."):
        return "matmul"
    if n.startswith("nn.functional.conv"):
        return "conv"
    if id(op) in _DB or n.startswith(("linalg.", "fft.")) or n in LINALG or n == "stft":
        return "linalg/fft"
    if n in SORT:
        return "sort"
    if n in RANDOM:
        return "random"
    if n.startswith("jiterator_"):
        return "CUDA only"
    if n in NOT_REPRODUCIBLE or full_name(op) in NOT_REPRODUCIBLE:
        return "not reproducible"
    return None


def selected():
    ops = {}
    for op in op_db:
        if torch.float32 in op.supported_dtypes("cpu") and aside(op) is None:
            ops.setdefault(full_name(op), op)
    return ops


OPS = selected()

# ops whose first sample does not pass through athene: the reason the backend logs when it
# compiles the graph with Inductor's C++ backend instead (docs/torch.md lists them)
ATHENE_MISSES = {
}
# ops whose first sample Inductor's C++ backend does not pass either (not counted)
CPP_MISSES = {
}

SAMPLE = ["abs", "add", "sum", "softmax", "nn.functional.pad.constant", "index_select", "gather", "cat", "flip",
          "var_mean", "nn.functional.layer_norm", "nn.functional.embedding", "where", "amax", "roll", "atan2",
          "nn.functional.gelu", "clamp", "hypot", "i0", "special.chebyshev_polynomial_t", "scatter",
          "index_add"]  # the last two: scatter stores
SWEEP = sorted(OPS) if os.environ.get("ATHENE_TEST_ALL") else SAMPLE

RTOL, ATOL = 1.3e-6 * 10, 1e-5 * 10  # float32's defaults of torch.testing.assert_close, x10

# ops whose float32 eager kernel loses digits that athene, computing in double, keeps: athene's
# result may match eager's on the sample in float64 instead (Inductor C++ runs eager's kernel)
F64_REFERENCE = {
    **{f"polygamma.polygamma_n_{n}": "trigamma in float: sinf(pi x) near a pole (2e-5 at -7.95)" for n in range(5)},
    "special.polygamma.special_polygamma_n_0": "trigamma in float, as polygamma",
}


# a private Inductor cache for this module's compiles (conftest.py)
pytestmark = pytest.mark.usefixtures("private_inductor_cache")


def first_sample(op):
    torch.manual_seed(0)
    return next(iter(op.sample_inputs("cpu", torch.float32, requires_grad=False)))


def _double(t):
    return t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t


def _clone(x):
    return tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, x)


def call(op, sample, fn=None):
    """(result, the tensor inputs after the call: in-place ops) of op on a fresh copy of the
    sample; fn compiles."""
    inp, args, kwargs = _clone((sample.input, sample.args, sample.kwargs))

    def f(i, *a):
        return op(i, *a, **kwargs)

    out = (fn or (lambda g: g))(f)(inp, *args)
    return out, [t for t in tree_leaves((inp, args)) if isinstance(t, torch.Tensor)]


class _Logged(logging.Handler):
    """The backend's fallback lines (logger athene.torch), without the common prefix."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage().replace("athene: graph compiled by Inductor's C++ backend instead: ", ""))


def outcome(name, backend):
    """None when op `name`'s first sample compiled with `backend` matches eager (and, for
    athene, every kernel ran through athene and none fell back), else why not."""
    op = OPS[name]
    sample = first_sample(op)
    want = call(op, sample)
    torch._dynamo.reset()
    before = at.stats()
    logged = _Logged()
    log = logging.getLogger("athene.torch")
    log.addHandler(logged)
    try:
        with inductor_config.patch(fx_graph_cache=False):
            got, codes = run_and_get_code(lambda: call(op, sample, lambda f: torch.compile(f, backend=backend)))
    except Exception as e:  # noqa: BLE001 - the reason is the outcome
        return f"compile/run error: {type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
    finally:
        log.removeHandler(logged)
    try:
        try:
            torch.testing.assert_close(got, want, rtol=RTOL, atol=ATOL, equal_nan=True)
        except AssertionError:
            if backend != "athene" or name not in F64_REFERENCE:
                raise
            want64 = call(op, sample.transform(_double))
            torch.testing.assert_close(tree_map(_double, got), want64, rtol=RTOL, atol=ATOL, equal_nan=True)
    except (AssertionError, TypeError, RuntimeError) as e:
        return "wrong value: " + " ".join(str(e).split())[:200]
    if backend == "athene":
        code = "\n".join(codes)
        if at.stats()["fallbacks"] != before["fallbacks"]:
            return "fell back to Inductor C++: " + "; ".join(logged.lines)
        if "cpp_fused" in code or "async_compile.cpp" in code:
            return "an Inductor C++ kernel in the graph"
    return None


@pytest.mark.parametrize("name", SWEEP)
def test_op(name):
    cpp = outcome(name, "inductor")
    assert (cpp is None) == (name not in CPP_MISSES), f"Inductor C++ on {name}: {cpp or 'passes now'}"
    got = outcome(name, "athene")
    if name in ATHENE_MISSES:
        assert got is not None, f"{name} passes through athene now: take it off ATHENE_MISSES"
        assert got == "fell back to Inductor C++: " + ATHENE_MISSES[name], got
    else:
        assert got is None, f"athene on {name}: {got}"


def test_sample_is_selected():
    assert set(SAMPLE) <= set(OPS)
    assert set(ATHENE_MISSES) <= set(OPS) and set(CPP_MISSES) <= set(OPS)


# Acceptance 2 of issue 39 asks for 98 % of the ops Inductor C++ passes; athene passes all 522
# today. This floor keeps that from getting worse.
FLOOR = 1.0


def test_fraction():
    """The fraction of the ops Inductor C++ passes that athene passes, from the lists test_op
    checks op by op; no miss is a wrong value."""
    cpp_passes = set(OPS) - set(CPP_MISSES)
    athene_passes = cpp_passes - set(ATHENE_MISSES)
    frac = len(athene_passes) / len(cpp_passes)
    print(f"op_db: athene passes {len(athene_passes)} of the {len(cpp_passes)} ops Inductor C++ passes "
          f"({100 * frac:.1f} %), {len(OPS)} ops selected")
    assert frac >= FLOOR, (len(athene_passes), len(cpp_passes))
    assert not [r for r in ATHENE_MISSES.values() if "wrong value" in r]
