"""What Inductor's generated wrapper calls: each athene kernel is compiled once when the wrapper
module loads (`athene_kernel_0 = athene_runtime.load(src, meta)`, also on an FX-graph-cache hit,
which skips codegen), and each run is one call of the package's kernel on the Inductor buffers.

The kernel's tensor arguments are passed as flat views of their storage from each tensor's data
pointer (athene declares their layouts and reads `.flat[...]` from there, as Inductor indexes
them); outputs go through `out=`; size arguments (`dynamic=True`) through `sizes=`."""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Mapping

import torch

import athene

log = logging.getLogger("athene.torch")

_counts = {"fallbacks": 0, "kernels_written": 0, "kernels_loaded": 0, "calls": 0}
_explain: Dict[str, Any] = {"on": False, "sink": None}  # log each kernel / collect them (explain())
_SIZES_DUMMY = torch.zeros(1, dtype=torch.uint8)


def written(name: str, src: str, meta: Mapping[str, Any]) -> None:
    _counts["kernels_written"] += 1
    if _explain["on"]:
        log.warning("athene kernel %s:\n%s", name, src)
    if _explain["sink"] is not None:
        _explain["sink"].append(src)


def check(name: str, src: str, meta: Mapping[str, Any], hints: Mapping[str, int]) -> None:
    """Compiles a kernel as the wrapper will, and binds it once with the sizes Inductor compiles
    for (the size hints under dynamic shapes): athene's compile errors surface at codegen (for a
    Pallas target, the emitter's too)."""
    if meta.get("target", "cpu") != "cpu":
        from . import _pallas
        module = _pallas.check(name, src, meta, _sizes(meta, hints))
        if _explain["on"]:
            log.warning("athene %s module of %s:\n%s", meta["target"], name, module)
        if _explain["sink"] is not None:
            _explain["sink"].append(module)
    mod = athene.compile(src, filename=f"{name}.ath")
    k = mod[name]
    sizes = _sizes(meta, hints)
    if _explain["on"] or _explain["sink"] is not None:
        text = k.explain(sizes=sizes or None)
        if _explain["on"]:
            log.warning("athene explain %s:\n%s", name, text)
        if _explain["sink"] is not None:
            _explain["sink"].append(text)
    else:
        k.layouts(sizes=sizes or None)


def _sizes(meta: Mapping[str, Any], env: Mapping[str, int]) -> Dict[str, int]:
    sizes = {s: int(env[s]) for s in meta["size_syms"]}
    for s, expr in meta["sizes"].items():
        sizes[s] = int(eval(expr, {"__builtins__": {}, "min": min, "max": max}, dict(env)))
    return sizes


class Kernel:
    """One athene kernel of a compiled graph, called with Inductor's kernel arguments."""

    def __init__(self, src: str, meta: Mapping[str, Any]) -> None:
        self.name = src.split("kernel ", 1)[1].split("(", 1)[0]
        self.kernel = athene.compile(src, filename=f"{self.name}.ath")[self.name]
        args: List[str] = meta["args"]
        pos = {a: i for i, a in enumerate(args)}
        storage = meta["storage"]
        self.inputs = [(pos[p], _storage(storage[p])) if p != "@sizes" else (None, None) for p in meta["inputs"]]
        self.outputs = [(pos[p], _storage(storage[p])) for p in meta["outputs"]]
        self.size_args = {a: i for i, a in enumerate(args) if a not in storage}
        self.meta = meta
        self.static = not self.size_args
        _counts["kernels_loaded"] += 1

    def __call__(self, *args: Any) -> None:
        _counts["calls"] += 1
        env = None if self.static else {a: int(args[i]) for a, i in self.size_args.items()}
        sizes = _sizes(self.meta, env) if env is not None else None
        ins = [_SIZES_DUMMY if i is None else _flat(args[i], n, env) for i, n in self.inputs]
        outs = tuple(_flat(args[i], n, env) for i, n in self.outputs)
        self.kernel(*ins, out=outs, sizes=sizes or None)


def _storage(expr: str) -> Any:
    try:
        return int(expr)
    except ValueError:
        return expr


def _flat(t: torch.Tensor, n: Any, env: Any) -> torch.Tensor:
    """The n storage elements from t's data pointer on, as a contiguous 1-D tensor (no copy)."""
    if not isinstance(n, int):
        n = max(int(eval(n, {"__builtins__": {}, "min": min, "max": max}, dict(env))), 0)
    return t.as_strided((n,), (1,))


def load(src: str, meta: Mapping[str, Any]) -> Any:
    if meta.get("target", "cpu") != "cpu":  # options={"target": "pallas" | "pallas-gpu"}
        from . import _pallas
        return _pallas.load(src, meta)
    return Kernel(src, meta)


def targeted(meta: Dict[str, Any]) -> Dict[str, Any]:
    """The kernel's meta with the compile's target when it is not the native executor's (the
    value of Inductor's cpu_backend names it: "athene-pallas", "athene-pallas-gpu")."""
    from torch._inductor import config

    target = config.cpu_backend.split("-", 1)[1] if config.cpu_backend.startswith("athene-") else "cpu"
    return meta if target == "cpu" else {**meta, "target": target}
