"""The Pallas targets of the backend (``options={"target": "pallas"}`` or ``"pallas-gpu"``): each
athene kernel of a compiled graph leaves as the Pallas module athene's emitter writes for it, and
the generated wrapper calls that module's jitted entry point.

One module is emitted per kernel and binding of its sizes (one binding without ``dynamic=True``)
and executed once; JAX compiles its jitted ``_K`` once per shape and keeps it (nothing is cleared
between calls). Where it runs: compiled when JAX's default backend is the target's device (a TPU
for "pallas", a GPU for "pallas-gpu"), else in Pallas's interpreter on the CPU device.

Data: each tensor argument is the same flat view of its storage the native executor gets (the
module's inputs declare their layouts, so they take storage, and the kernel reads the view). On
the CPU these go to JAX through DLPack without a copy when the view's data pointer is 64-byte
aligned (JAX copies any other, e.g. a view at a storage offset). The module's outputs are
declared without their layouts (contiguous arrays of their logical shapes, `pallas_source`): they
come back through DLPack without a copy and are copied once into the view Inductor's buffer
has for them (strided, at an offset: a slice of a `cat`'s buffer, a transposed output), so an
output view is never a store the TPU has to make."""

from __future__ import annotations

import builtins
import types
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np
import torch

import athene

from . import _runtime

TARGETS = ("pallas", "pallas-gpu")
_DEVICE = {"pallas": "tpu", "pallas-gpu": "gpu"}
_export: Dict[str, Any] = {"sink": None}  # export_pallas(): collects (module, entry, avals) per kernel call


def _jax() -> Any:
    try:
        import jax
        import jax.dlpack  # noqa: F401
    except ImportError as e:  # pragma: no cover - jax is a test requirement
        raise ImportError("the athene backend's Pallas targets need jax and jaxlib (requirements-jax.txt)") from e
    return jax


def emit(kernel: athene.Kernel, sizes: Mapping[str, int], target: str) -> str:
    """The emitted Pallas module of one kernel for one binding of its sizes; an emitter refusal
    (a kernel the gpu module cannot hold) is a CompileError naming the reason."""
    src = kernel.pallas(sizes=dict(sizes) or None, target=target)
    marker = f"# ---- kernel {kernel.name}: not emitted for {target}: "
    if marker in src:
        why = src.split(marker, 1)[1].splitlines()[0]
        raise athene.CompileError(f"kernel {kernel.name}: not emitted for {target}: {why}")
    return src


def pallas_source(src: str, outputs: List[str]) -> str:
    """The kernel's source with its outputs declared without their layouts (`y: f32[3, 4]
    strides(9, 1) offset 4` -> `y: f32[3, 4]`): their statements index them logically, so only
    the declaration changes."""
    head, body = src.split("\n", 1)
    ins, outs = head.rsplit(") -> (", 1)
    if not outs.endswith(") {"):
        raise athene.CompileError(f"unexpected kernel header {head!r}")
    text = outs[:-len(") {")]
    starts: List[int] = []
    for name in outputs:
        at = text.find(f", {name}: ", starts[-1]) + 2 if starts else (0 if text.startswith(f"{name}: ") else -1)
        if at < (starts[-1] + 2 if starts else 0):
            raise athene.CompileError(f"output {name} not found in kernel header {head!r}")
        starts.append(at)
    decls = [text[a:b].rstrip(", ") for a, b in zip(starts, starts[1:] + [len(text)])]
    plain = [d[:d.index("]") + 1] for d in decls]
    return f"{ins}) -> ({', '.join(plain)}) {{\n{body}"


class _Entry:
    """The module of one binding: its jitted entry point, the index-error messages (when the
    kernel has checked gathers) and the output layouts."""

    def __init__(self, kernel: athene.Kernel, plain: athene.Kernel, sizes: Mapping[str, int], target: str) -> None:
        self.source = emit(plain, sizes, target)
        name = kernel.name
        mod = types.ModuleType(f"athene_pallas_{name}")
        exec(builtins.compile(self.source, f"<athene pallas module of {name}>", "exec"), mod.__dict__)
        self.module = mod
        self.jitted = getattr(mod, f"_{name}")
        self.pure = getattr(mod, f"{name}_pure")
        self.plain = plain
        self.messages = getattr(mod, f"_{name}_MESSAGES", None)
        lay = kernel.layouts(sizes=dict(sizes) or None)
        nin = sum(1 for p in kernel.params if not p.is_output)
        self.outs = [lay[p.name] for p in kernel.params[nin:]]


class Kernel:
    """One athene kernel of a compiled graph, run as its emitted Pallas module."""

    def __init__(self, src: str, meta: Mapping[str, Any]) -> None:
        jax = _jax()
        self.target = meta["target"]
        self.name = src.split("kernel ", 1)[1].split("(", 1)[0]
        self.kernel = athene.compile(src, filename=f"{self.name}.ath")[self.name]
        outs = [p.name for p in self.kernel.params if p.is_output]
        self.plain = athene.compile(pallas_source(src, outs), filename=f"{self.name}.ath")[self.name]
        args: List[str] = meta["args"]
        pos = {a: i for i, a in enumerate(args)}
        storage = meta["storage"]
        self.inputs = [(pos[p], _runtime._storage(storage[p])) if p != "@sizes" else (None, None)
                       for p in meta["inputs"]]
        self.outputs = [(pos[p], _runtime._storage(storage[p])) for p in meta["outputs"]]
        self.size_args = {a: i for i, a in enumerate(args) if a not in storage}
        self.meta = meta
        self.entries: Dict[Tuple[Tuple[str, int], ...], _Entry] = {}
        self.compiled = jax.default_backend() == _DEVICE[self.target]
        self.device = jax.devices()[0] if self.compiled else None
        _runtime._counts["kernels_loaded"] += 1

    def entry(self, sizes: Mapping[str, int]) -> _Entry:
        key = tuple(sorted(sizes.items()))
        e = self.entries.get(key)
        if e is None:
            e = self.entries[key] = _Entry(self.kernel, self.plain, sizes, self.target)
        return e

    def __call__(self, *args: Any) -> None:
        jax = _jax()
        _runtime._counts["calls"] += 1
        env = {a: int(args[i]) for a, i in self.size_args.items()} if self.size_args else None
        sizes = _runtime._sizes(self.meta, env) if env is not None else {}
        e = self.entry(sizes)
        ins = [_to_jax(jax, _SIZES_DUMMY if i is None else _runtime._flat(args[i], n, env), self.device)
               for i, n in self.inputs]
        if _export["sink"] is not None:
            _export["sink"].append((self.name, e, [jax.ShapeDtypeStruct(x.shape, x.dtype) for x in ins]))
        res = e.jitted(*ins, interpret=not self.compiled)
        res = list(res) if isinstance(res, tuple) else [res]
        if e.messages is not None:
            bad = res.pop()
            _raise_bad(e, bad)
        for (i, n), lay, r in zip(self.outputs, e.outs, res):
            _write_back(_runtime._flat(args[i], n, env), r, lay)


_SIZES_DUMMY = torch.zeros(1, dtype=torch.uint8)


def _to_jax(jax: Any, t: torch.Tensor, device: Any) -> Any:
    """A torch CPU tensor as a JAX array: DLPack (no copy when 64-byte aligned), then onto the
    accelerator when the module runs compiled there."""
    if t.numel() == 0:
        x = jax.numpy.zeros(t.shape, _jax_dtype(t.dtype))
    else:
        x = jax.dlpack.from_dlpack(t.detach())  # a parameter's storage: the values, not the graph
    return jax.device_put(x, device) if device is not None else x


def _jax_dtype(dt: torch.dtype) -> Any:
    import jax.numpy as jnp
    return {torch.bfloat16: jnp.bfloat16}.get(dt) or np.dtype(str(dt).replace("torch.", ""))


def _raise_bad(e: _Entry, bad: Any) -> None:
    """An out-of-range gather index raises athene.RunError with the module's message (the
    native executor's error class: programs see one kind of error whatever the target)."""
    try:
        e.module._raise_bad(bad, e.messages)
    except IndexError as err:
        raise athene.RunError(str(err)) from None


def _write_back(dst: torch.Tensor, r: Any, lay: athene.Layout) -> None:
    """Copies one output, a contiguous array of its logical shape from the module, into the
    view of Inductor's buffer its layout gives (dst: the flat view of the buffer's storage from
    its data pointer)."""
    if int(np.prod(lay.shape)) == 0:
        return
    try:
        src = torch.from_dlpack(r)
    except (RuntimeError, TypeError, BufferError):  # an accelerator's array
        src = torch.from_numpy(np.asarray(r))
    view = dst.as_strided(tuple(lay.shape), tuple(lay.strides), dst.storage_offset() + lay.offset)
    view.copy_(src.reshape(tuple(lay.shape)))


def load(src: str, meta: Mapping[str, Any]) -> Kernel:
    return Kernel(src, meta)


def check(name: str, src: str, meta: Mapping[str, Any], sizes: Mapping[str, int]) -> Optional[str]:
    """Emits the kernel's module at codegen for the sizes Inductor compiles for: an emitter
    error (or refusal) surfaces there, and the graph falls back with its reason."""
    k = athene.compile(src, filename=f"{name}.ath")[name]
    plain = pallas_source(src, [p.name for p in k.params if p.is_output])
    return emit(athene.compile(plain, filename=f"{name}.ath")[name], sizes, meta["target"])
