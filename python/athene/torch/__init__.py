"""athene as a PyTorch 2 backend: ``torch.compile(fn, backend="athene")``.

Importing this module registers the Dynamo backend "athene" and athene's scheduling for
Inductor's "cpu" device under ``cpu_backend="athene"``; every other value of ``cpu_backend``
(the default "cpp" included) still goes to torch's own backends. Inductor does the
decompositions, lowering, fusion and scheduling; each fused kernel becomes one athene kernel.

A graph with a kernel athene cannot express is compiled by Inductor's C++ backend instead, with
one logged line naming the reason (logger "athene.torch"); ``fallbacks()`` counts them.

Options (``torch.compile(fn, backend="athene", options={...})``): athene's own ``threads``
(athene's thread count, process-wide: ``athene.set_threads``), ``explain`` (log each
kernel's source and ``athene explain``) and ``target`` ("cpu", the native executor, by default;
"pallas" or "pallas-gpu": each kernel runs as its emitted Pallas module through JAX, _pallas.py);
every other option goes to Inductor's config.

``export_pallas(fn, *args, path=...)`` writes the Pallas modules of a compiled program.

``register_op(name, kernel)`` makes a hand-written athene kernel a ``torch.library`` custom op.
"""

from __future__ import annotations

import ctypes
import glob
import hashlib
import logging
import os
from typing import Any, Dict, List, Optional

import torch
from torch._inductor import config as _config
from torch._inductor.codegen import common as _common
from torch._inductor.custom_graph_pass import CustomGraphModulePass

import athene
from athene import _lib

from . import _runtime
from ._kernel import BACKEND, BACKENDS, AtheneScheduling, Unsupported, node_tilings
from ._ops import register_op

__all__ = ["backend", "install", "fallbacks", "stats", "explain", "export_pallas", "register_op", "Unsupported"]

_ATHENE_OPTIONS = ("threads", "explain", "target")
TARGETS = ("cpu", "pallas", "pallas-gpu")


class _CacheKey(CustomGraphModulePass):
    """A pass that changes nothing, registered for the "cpu" device so that Inductor's FX graph
    cache key holds athene's code: a cached graph's kernels were written by this version of
    the kernel writer for this library, and another version compiles anew. Only athene's
    compiles carry it (uuid None otherwise, so the default backend's keys stay torch's own)."""

    _digest: Optional[str] = None

    def __call__(self, gm: torch.fx.GraphModule) -> None:
        return None

    def uuid(self) -> Optional[str]:
        if _config.cpu_backend not in BACKENDS:
            return None
        if _CacheKey._digest is None:
            h = hashlib.sha256()
            pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            files = sorted(glob.glob(os.path.join(pkg, "*.py")) + glob.glob(os.path.join(pkg, "torch", "*.py")))
            for f in files + [_lib._find()]:
                with open(f, "rb") as fh:
                    h.update(fh.read())
            _CacheKey._digest = h.hexdigest()
        return _CacheKey._digest


def _torch_team() -> Optional[int]:
    """The address of ``GOMP_parallel`` in the OpenMP runtime torch runs its kernels on (libgomp,
    or Intel's, which has the same entry), found among the libraries this process has mapped;
    None when torch's parallel backend is not OpenMP or no such runtime is mapped."""
    if "parallel backend: OpenMP" not in torch.__config__.parallel_info():
        return None
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({line.split()[-1] for line in f if line.rstrip().endswith((".so", ".so.1", ".so.5"))})
    except OSError:
        return None
    for path in paths:
        if not os.path.basename(path).startswith(("libgomp", "libiomp")):
            continue
        try:
            fn = ctypes.CDLL(path).GOMP_parallel  # already mapped: the same runtime, not a second one
        except (OSError, AttributeError):
            continue
        return ctypes.cast(fn, ctypes.c_void_p).value
    return None


def _join_team() -> None:
    """athene's kernels run on torch's OpenMP team (athene_set_team), not on athene's own
    workers: torch's threads spin for a while after each of its kernels, and on as many cores as
    threads two pools would take turns on them (docs/torch.md, Threads). ATHENE_TORCH_TEAM=0
    keeps athene's own workers."""
    if os.environ.get("ATHENE_TORCH_TEAM", "1") != "0":
        _lib.lib.athene_set_team(_torch_team())


def install() -> None:
    """Wraps the "cpu" scheduling of Inductor's device registry: ``config.cpu_backend ==
    "athene"`` picks athene's, any other value torch's own (cpp, halide, triton, pallas).
    Idempotent; runs on import."""
    _common.init_backend_registration()
    dc = _common.device_codegens["cpu"]
    if getattr(dc.scheduling, "_athene", False):
        return
    builtin = dc.scheduling

    def pick(scheduler: Any) -> Any:
        return AtheneScheduling(scheduler) if _config.cpu_backend in BACKENDS else builtin(scheduler)

    pick._athene = True  # type: ignore[attr-defined]
    _common.register_backend_for_device("cpu", pick, dc.wrapper_codegen, dc.cpp_wrapper_codegen,
                                        dc.fx_wrapper_codegen, device_custom_pass=_CacheKey())


def fallbacks() -> int:
    """How many graphs this process compiled with Inductor's C++ backend instead of athene."""
    return _runtime._counts["fallbacks"]


def stats() -> Dict[str, int]:
    """Counters: graphs fallen back, athene kernels written (codegen), loaded (wrapper modules
    imported) and called (`calls`; of those, `fast_calls` through the C entry athene._fast)."""
    counts = dict(_runtime._counts)
    counts["fast_calls"] = _runtime.fast_calls()
    counts["calls"] += counts["fast_calls"]
    return counts


def _reason(e: BaseException) -> str:
    """One line: why athene's compile failed (athene's own refusal or compile error, else the
    error Inductor raised while athene's scheduling wrote the kernels)."""
    seen = set()
    inner: BaseException = e
    x: Optional[BaseException] = e
    while x is not None and id(x) not in seen:
        seen.add(id(x))
        if isinstance(x, (Unsupported, athene.CompileError)):
            inner = x
            break
        nxt = getattr(x, "inner_exception", None) or x.__cause__
        if nxt is not None:
            inner = nxt
        x = nxt
    text = str(inner).strip()
    first = text.splitlines()[0] if text else ""
    if isinstance(inner, Unsupported):
        return first
    if isinstance(inner, athene.CompileError):
        # the diagnostic's message, without the file and position
        return first.split(" error: ", 1)[-1]
    return f"{type(inner).__name__}: {first}"


def _fell_back(reason: str) -> None:
    _runtime._counts["fallbacks"] += 1
    _runtime.log.warning("athene: graph compiled by Inductor's C++ backend instead: %s", reason)


def _inner_compile(explain: bool) -> Any:
    """Inductor's compile_fx_inner for one graph (the forward, the backward of a training step
    compiled when it first runs, or an inference graph) with athene's kernels; when athene
    cannot express one of them, that graph compiled by Inductor's C++ backend instead."""
    from torch._inductor.compile_fx import compile_fx_inner
    from torch._inductor.exc import InductorError

    def inner(gm: torch.fx.GraphModule, example_inputs: Any, **kwargs: Any) -> Any:
        # the scheduler logs a failing kernel's whole node before it raises: a kernel athene
        # cannot express is reported here instead, in one line
        sched_log = logging.getLogger("torch._inductor.scheduler")
        level = sched_log.level
        sched_log.setLevel(logging.CRITICAL + 1)
        _runtime._explain["on"] = explain
        try:
            with node_tilings():
                return compile_fx_inner(gm, example_inputs, **kwargs)
        except InductorError as e:
            reason = _reason(e)
        finally:
            sched_log.setLevel(level)
            _runtime._explain["on"] = False
        _fell_back(reason)
        with _config.patch(cpu_backend="cpp"):
            return compile_fx_inner(gm, example_inputs, **kwargs)

    return inner


def backend(gm: torch.fx.GraphModule, example_inputs: Any, **kwargs: Any) -> Any:
    """The Dynamo backend: Inductor's compile_fx with athene's scheduling for this compile."""
    from torch._inductor.compile_fx import compile_fx
    from torch._inductor.exc import InductorError

    install()
    options = dict(kwargs.get("options") or {})
    threads = options.pop("threads", None)
    explain = bool(options.pop("explain", False))
    target = options.pop("target", "cpu")
    if target not in TARGETS:
        raise ValueError(f"athene backend: unknown target {target!r} (one of {', '.join(map(repr, TARGETS))})")
    # athene's pool and torch's intra-op threads (extern mm/conv) take turns within a call: athene
    # follows torch's count unless told otherwise (docs/torch.md, bench/torch_threads.py)
    athene.set_threads(int(threads) if threads is not None else torch.get_num_threads())
    # the target is part of cpu_backend's value, so it is part of the FX graph cache's key
    patches = {"triton.max_tiles": 3, "triton.prefer_nd_tiling": True, "triton.tiling_prevents_reduction_fusion": False,
               "fallback_random": True, **options,
               "cpu_backend": BACKEND if target == "cpu" else f"{BACKEND}-{target}"}
    try:
        return compile_fx(gm, example_inputs, inner_compile=_inner_compile(explain), config_patches=patches)
    except InductorError as e:  # outside the compile of one graph
        reason = _reason(e)
    _fell_back(reason)
    options.pop("cpu_backend", None)
    return compile_fx(gm, example_inputs, config_patches={**options, "cpu_backend": "cpp"})


def explain(fn: Any, *args: Any, options: Optional[Dict[str, Any]] = None, **kwargs: Any) -> str:
    """Compiles fn with athene for these arguments and calls it once; returns, for each athene
    kernel of the compiled graphs, its source and `athene explain` (what every access is, and
    the plan). Codegen runs (the FX graph cache is bypassed for this compile)."""
    from torch._inductor import config as inductor_config

    def fresh(gm: torch.fx.GraphModule, example_inputs: Any, **kw: Any) -> Any:  # a new backend: Dynamo compiles anew
        return backend(gm, example_inputs, **kw)

    sink: list = []
    _runtime._explain["sink"] = sink
    try:
        with inductor_config.patch(fx_graph_cache=False):
            torch.compile(fn, backend=fresh, options=options)(*args, **kwargs)
    finally:
        _runtime._explain["sink"] = None
    return "\n".join(sink)


def export_pallas(fn: Any, *args: Any, path: str, target: str = "pallas",
                  options: Optional[Dict[str, Any]] = None, **kwargs: Any) -> List[str]:
    """Compiles fn with athene for a Pallas target ("pallas" or "pallas-gpu"), calls it once on
    these arguments, and writes into the directory ``path`` the emitted module of every athene
    kernel it ran (``NN_<kernel>.py``, in call order), with ``manifest.json``: per module its
    file, kernel, entry point (``<kernel>_pure``, the traceable one to ``jax.jit``, lower or
    ``jax.export`` for a TPU) and the shapes and dtypes of its inputs, as the wrapper passed them
    (flat storage). Returns the paths of the modules. The FX graph cache is bypassed."""
    import json
    import os

    from torch._inductor import config as inductor_config

    from . import _pallas

    if target not in _pallas.TARGETS:
        raise ValueError(f"export_pallas: target must be one of {', '.join(map(repr, _pallas.TARGETS))}, not {target!r}")

    def fresh(gm: torch.fx.GraphModule, example_inputs: Any, **kw: Any) -> Any:  # Dynamo compiles anew
        return backend(gm, example_inputs, **kw)

    sink: list = []
    _pallas._export["sink"] = sink
    try:
        with inductor_config.patch(fx_graph_cache=False):
            torch.compile(fn, backend=fresh, options={**(options or {}), "target": target})(*args, **kwargs)
    finally:
        _pallas._export["sink"] = None
    os.makedirs(path, exist_ok=True)
    paths, manifest, seen = [], [], set()
    for name, entry, avals in sink:
        if id(entry) in seen:
            continue
        seen.add(id(entry))
        file = f"{len(manifest):02d}_{name}.py"
        with open(os.path.join(path, file), "w") as f:
            f.write(entry.source)
        paths.append(os.path.join(path, file))
        manifest.append({"file": file, "kernel": name, "entry": f"{name}_pure", "target": target,
                         "inputs": [{"shape": list(a.shape), "dtype": str(a.dtype)} for a in avals]})
    with open(os.path.join(path, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return paths


def _register() -> None:
    """Registers the Dynamo backend "athene", unless the installed package's entry point
    (group torch_dynamo_backends) provides the name: Dynamo then loads this module's backend
    through it."""
    from torch._dynamo.backends import registry

    registry._lazy_import()
    if registry._COMPILER_FNS.get(BACKEND) is not None or registry._BACKENDS.get(BACKEND) is not None:
        return
    torch._dynamo.register_backend(backend, name=BACKEND)


install()
_join_team()
_register()
