"""What Inductor's generated wrapper calls: each athene kernel is compiled once when the wrapper
module loads (`athene_kernel_0 = athene_runtime.load(src, meta)`, also on an FX-graph-cache hit,
which skips codegen), and each run is one call of the package's kernel on the Inductor buffers.

Each run is one vectorcall of the C extension athene._fast where it is built: it reads the
tensors' data pointers in C (through the function torch exports for its own C++ wrappers) and
calls athene_run_checked on them with the instance bound for the call's size ints; a binding is
made here, once per distinct size ints, and the tensors are checked then (device, dtype, storage).
Runs that must copy through temporaries (an output overlapping an input, a binding whose failing
runs may write part of an output) and every run without the extension go the package's way:
the kernel's tensor arguments as flat views of their storage from each tensor's data pointer
(athene declares their layouts and reads `.flat[...]` from there, as Inductor indexes them),
outputs through `out=`, size arguments (`dynamic=True`) through `sizes=`."""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Mapping

import torch

import athene
from athene import _lib
from athene._errors import RunError

log = logging.getLogger("athene.torch")

_counts = {"fallbacks": 0, "kernels_written": 0, "kernels_loaded": 0, "calls": 0}
_explain: Dict[str, Any] = {"on": False, "sink": None}  # log each kernel / collect them (explain())
_SIZES_DUMMY = torch.zeros(1, dtype=torch.uint8)


_fast: Dict[str, Any] = {"module": None, "checked": False, "data_ptr": 0}


def fast_module() -> Any:
    """athene._fast and torch's data-pointer function, or None (said once in the log: kernels
    are then called through ctypes)."""
    if not _fast["checked"]:
        _fast["checked"] = True
        mod, why = _lib.load_fast()
        addr = 0
        if mod is not None:
            try:
                addr = int(torch._C._dynamo.guards._torchinductor_pyobject_tensor_data_ptr)
            except (AttributeError, TypeError, ValueError):
                why = "this torch exports no _torchinductor_pyobject_tensor_data_ptr"
        if mod is None or not addr:
            log.warning("athene: the per-call C entry athene._fast is not used (%s): kernels are called "
                        "through ctypes", why)
        else:
            _fast["module"], _fast["data_ptr"] = mod, addr
    return _fast["module"]


def fast_calls() -> int:
    """Kernel runs that went through athene._fast's C entry (not its slow way)."""
    mod = _fast["module"]
    if mod is None:
        return 0
    calls, slow = mod.calls()
    return int(calls - slow)


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

    def fast(self, mod: Any) -> Any:
        """This kernel as an athene._fast.Kernel: one C call per run, this object's __call__ the
        slow way."""
        meta, pos = self.meta, {a: i for i, a in enumerate(self.meta["args"])}
        arg_of = [pos[p] if p != "@sizes" else -1 for p in meta["inputs"] + meta["outputs"]]
        size_at = sorted(self.size_args.values())
        return mod.Kernel(self.name, _lib.address(_lib.lib.athene_run_checked), _fast["data_ptr"], torch.Tensor,
                          len(meta["args"]), arg_of, self.kernel._itemsize, len(meta["inputs"]), size_at,
                          self._bind, self, RunError)

    def _bind(self, *args: Any) -> Any:
        """An instance for the size ints of args, and what a C call of it needs: (owner, instance
        address, storage elements per parameter, flags, whether runs may take the C path).
        The tensors are checked here, once per binding: on a CPU, of the parameter's dtype, and
        holding the storage Inductor's layout reaches from their data pointer."""
        env = None if self.static else {a: int(args[i]) for a, i in self.size_args.items()}
        sizes = _sizes(self.meta, env) if env is not None else {}
        k = self.kernel
        inst = k._bound((), {}, sizes or None)
        owner = _Binding(k, inst)
        elems = []
        for j, (i, n) in enumerate(self.inputs + self.outputs):
            if i is None:
                elems.append(1)
                continue
            if not isinstance(n, int):
                n = max(int(eval(n, {"__builtins__": {}, "min": min, "max": max}, dict(env or {}))), 0)
            _check_tensor(k, j, args[i], n)
            elems.append(n)
        clean = bool(_lib.lib.athene_inst_clean_errors(inst.ptr))
        return owner, inst.ptr, elems, _lib.UNTOUCHED if clean else 0, clean

    def __call__(self, *args: Any) -> None:
        _counts["calls"] += 1
        env = None if self.static else {a: int(args[i]) for a, i in self.size_args.items()}
        sizes = _sizes(self.meta, env) if env is not None else None
        ins = [_SIZES_DUMMY if i is None else _flat(args[i], n, env) for i, n in self.inputs]
        outs = tuple(_flat(args[i], n, env) for i, n in self.outputs)
        self.kernel(*ins, out=outs, sizes=sizes or None)


class _Binding:
    """Owns one compiled instance that athene._fast runs; freed with it."""

    __slots__ = ("kernel", "inst")

    def __init__(self, kernel: Any, inst: Any) -> None:
        self.kernel, self.inst = kernel, inst

    def __del__(self) -> None:
        try:
            self.kernel._free(self.inst)
        except Exception:  # interpreter shutdown
            pass


_DTYPES = {torch.bool: "bool", torch.int8: "i8", torch.int16: "i16", torch.int32: "i32", torch.int64: "i64",
           torch.uint8: "u8", torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
           torch.float64: "f64"}


def _check_tensor(k: Any, j: int, t: Any, n: int) -> None:
    """The checks the package's call makes of a tensor for parameter j, that the C path skips
    after the first call of a binding."""
    p = k.params[j]
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"kernel {k.name}: '{p.name}' is {type(t).__name__}, not a tensor")
    if t.device.type != "cpu":
        raise TypeError(f"kernel {k.name}: '{p.name}' is a torch tensor on {t.device}; athene runs on CPU tensors")
    if _DTYPES.get(t.dtype) != p.dtype:
        raise TypeError(f"kernel {k.name}: '{p.name}' is {p.dtype}, but the tensor given for it is {t.dtype}")
    have = t.untyped_storage().nbytes() // t.element_size() - t.storage_offset()
    if n > 0 and have < n:
        raise ValueError(f"kernel {k.name}: the storage given for '{p.name}' has {have} elements; "
                         f"Inductor's layout reaches {n}")


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
    k = Kernel(src, meta)
    mod = fast_module()
    return k if mod is None else k.fast(mod)


def targeted(meta: Dict[str, Any]) -> Dict[str, Any]:
    """The kernel's meta with the compile's target when it is not the native executor's (the
    value of Inductor's cpu_backend names it: "athene-pallas", "athene-pallas-gpu")."""
    from torch._inductor import config

    target = config.cpu_backend.split("-", 1)[1] if config.cpu_backend.startswith("athene-") else "cpu"
    return meta if target == "cpu" else {**meta, "target": target}
