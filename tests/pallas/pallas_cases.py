"""Shared by the Pallas tests: JAX on the CPU with x64 (the examples have f64 and i64 kernels),
and the emitted module of every example file, built once per session.

Each example kernel is bound with the sizes and input shapes of its entry in the CASES table of
tests/test_examples.py (the NumPy reference of every example), all kernels of a file are emitted
into one module through athene_emit, and the module is imported from a scratch folder."""
import importlib.util
import os
import sys

os.environ.setdefault("TPU_SKIP_MDS_QUERY", "1")
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")  # test runs side by side share libtpu
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

jax.config.update("jax_enable_x64", True)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import athene_lib as A  # noqa: E402
import test_examples as TE  # noqa: E402


def value(x):
    """A CASES input as an array: BF16 values as ml_dtypes bfloat16."""
    import ml_dtypes
    if isinstance(x, TE.BF16):
        return np.asarray(x.values, np.float32).astype(ml_dtypes.bfloat16)
    return np.asarray(x)


class Case:
    """One example kernel: its instance, the logical inputs and the NumPy outputs."""

    def __init__(self, ctx, name):
        c = TE.CASES[name]
        self.case = c
        self.inputs, self.expected = c.build(TE.rng_for(name))
        k = A.LIB.athene_find_kernel(ctx, name.encode())
        shapes = {}
        for pname, x in self.inputs.items():
            i = A.LIB.athene_param_index(k, pname.encode())
            shp = value(x).shape
            if any(A.LIB.athene_param_dim_sym(k, i, d) >= 0 for d in range(len(shp))):
                shapes[i] = shp
        self.kernel = A.Kernel(ctx, k, sizes=c.sizes, shapes=shapes)

    def args(self):
        """The entry point's arguments: logical arrays, storage for declared layouts."""
        kn = self.kernel
        out = []
        for i in range(kn.nin):
            x = value(self.inputs[kn.params[i].name.decode()]).astype(kn.dtype(kn.params[i]))
            out.append(kn.storage(i, x) if kn.declares_layout(i) else np.ascontiguousarray(x))
        return out

    def storages(self):
        kn = self.kernel
        return [a if kn.declares_layout(i) else a.reshape(-1) for i, a in enumerate(self.args())]

    def logical_outputs(self, outs):
        kn = self.kernel
        got = {}
        for j, o in enumerate(outs):
            i = kn.nin + j
            o = np.asarray(o)
            got[kn.params[i].name.decode()] = kn.logical(i, o.reshape(-1))
        return got


class Modules:
    def __init__(self, tmp):
        self.tmp = tmp
        self.files = {}

    def get(self, file, target="pallas"):
        """(module, {kernel: Case}) of an example file for an emit target, emitted once."""
        if (file, target) not in self.files:
            ctx = A.load(os.path.join(A.EXAMPLES, file))
            cases = {n: Case(ctx, n) for n, c in sorted(TE.CASES.items()) if c.file == file}
            text = A.emit([c.kernel for c in cases.values()], target)
            stem = target.replace("-", "_") + "_" + file[:-4]
            path = os.path.join(self.tmp, stem + ".py")
            with open(path, "w") as f:
                f.write(text)
            spec = importlib.util.spec_from_file_location(stem, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            mod.TEXT = text
            self.files[file, target] = (mod, cases)
        return self.files[file, target]


@pytest.fixture(scope="session")
def modules(tmp_path_factory):
    return Modules(str(tmp_path_factory.mktemp("pallas")))
