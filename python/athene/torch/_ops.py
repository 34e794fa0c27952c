"""Hand-written athene kernels as PyTorch operators: ``register_op("mylib::affine", kernel)``
makes a compiled `.ath` kernel a ``torch.library`` custom op. Eager calls run the kernel on the
CPU tensors as they lie (any strides, no copies) into fresh outputs; the fake (meta)
implementation gives the outputs the shapes the kernel declares, with each size symbol bound
from the inputs' shapes, so Dynamo traces the op into a graph (no graph break) and Inductor,
athene's backend included, calls it as an extern kernel."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import torch

import athene

_TORCH_DTYPES = {"bool": torch.bool, "i8": torch.int8, "i16": torch.int16, "i32": torch.int32,
                 "i64": torch.int64, "u8": torch.uint8, "f16": torch.float16, "bf16": torch.bfloat16,
                 "f32": torch.float32, "f64": torch.float64}
_NAME = re.compile(r"^(?:([A-Za-z_][A-Za-z0-9_]*)::)?([A-Za-z_][A-Za-z0-9_]*)$")

Dim = Union[int, str]


def _declared_dims(kernel: athene.Kernel) -> Dict[str, Tuple[Dim, ...]]:
    """Each parameter's dims as its declaration writes them (a literal or a size symbol), read
    from the kernel's signature: ``affine(x: f32[N, 4]) -> (y: f32[N, 4])``."""
    sig = kernel.signature()
    dims: Dict[str, Tuple[Dim, ...]] = {}
    for p in kernel.params:
        m = re.search(r"(?<![A-Za-z0-9_])" + re.escape(p.name) + r"\s*:\s*[a-z0-9]+\s*\[([^\]]*)\]", sig)
        if m is None:
            if p.rank == 0:
                dims[p.name] = ()
                continue
            raise ValueError(f"kernel {kernel.name}: cannot read the dims of '{p.name}' from {sig!r}")
        toks = [t.strip() for t in m.group(1).split(",") if t.strip()]
        if len(toks) != p.rank:
            raise ValueError(f"kernel {kernel.name}: cannot read the dims of '{p.name}' from {sig!r}")
        dims[p.name] = tuple(int(t) if t.isdigit() else t for t in toks)
    return dims


class _Op:
    """What a registered op knows of its kernel: the inputs' dims to bind size symbols from,
    and each output's dims and dtype."""

    def __init__(self, qualname: str, kernel: athene.Kernel, sizes: Mapping[str, int]) -> None:
        self.qualname = qualname
        self.kernel = kernel
        self.sizes = {str(k): int(v) for k, v in sizes.items()}
        dims = _declared_dims(kernel)
        for p in kernel.outputs:
            if p.declares_layout:
                raise ValueError(f"kernel {kernel.name}: output '{p.name}' declares its layout; a registered "
                                 "op's outputs are fresh contiguous tensors")
            if p.dtype not in _TORCH_DTYPES:
                raise ValueError(f"kernel {kernel.name}: output '{p.name}' has dtype {p.dtype}, which torch lacks")
        self.in_dims = [dims[p.name] for p in kernel.inputs]
        self.outs = [(p.name, dims[p.name], _TORCH_DTYPES[p.dtype]) for p in kernel.outputs]
        bound = {d for ds in self.in_dims for d in ds if isinstance(d, str)} | set(self.sizes)
        for name, ds, _ in self.outs:
            free = [d for d in ds if isinstance(d, str) and d not in bound]
            if free:
                raise ValueError(f"kernel {kernel.name}: size symbol {free[0]} of output '{name}' is not a dim of "
                                 f"an input; give it with sizes={{'{free[0]}': ...}}")

    def shapes(self, args: Sequence[torch.Tensor]) -> List[Tuple[Any, ...]]:
        """The outputs' shapes for these inputs (ints, or SymInts while tracing)."""
        env: Dict[str, Any] = dict(self.sizes)
        for p, ds, t in zip(self.kernel.inputs, self.in_dims, args):
            if t.dim() != len(ds):
                raise ValueError(f"{self.qualname}: input '{p.name}' of kernel {self.kernel.name} has rank {len(ds)}, "
                                 f"the tensor given has shape {tuple(t.shape)}")
            for d, (want, got) in enumerate(zip(ds, t.shape)):
                key = want if isinstance(want, str) else None
                expect = env.get(key) if key is not None else want
                if expect is None:
                    env[key] = got
                else:
                    torch._check(got == expect, lambda: f"{self.qualname}: dim {d} of input '{p.name}' is {got}, "
                                 f"the kernel {self.kernel.name} needs {expect}")
        return [tuple(env[d] if isinstance(d, str) else d for d in ds) for _, ds, _ in self.outs]

    def run(self, *args: torch.Tensor) -> Any:
        outs = [torch.empty(s, dtype=dt) for s, (_, _, dt) in zip(self.shapes(args), self.outs)]
        self.kernel(*args, out=tuple(outs), sizes=self.sizes or None)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def fake(self, *args: torch.Tensor) -> Any:
        dev = args[0].device if args else torch.device("cpu")
        outs = [torch.empty(s, dtype=dt, device=dev) for s, (_, _, dt) in zip(self.shapes(args), self.outs)]
        return outs[0] if len(outs) == 1 else tuple(outs)


def _exists(qualname: str) -> bool:
    ns, name = qualname.split("::")
    try:
        getattr(getattr(torch.ops, ns), name)
    except (AttributeError, RuntimeError):
        return False
    return True


def register_op(name: str, kernel: athene.Kernel, *, sizes: Optional[Mapping[str, int]] = None) -> Any:
    """Registers ``kernel`` (an ``athene.Kernel``, from ``athene.compile(src)[name]``) as the
    PyTorch custom op ``name`` ("namespace::op", or "op" in the namespace "athene"); returns the
    op (``torch.library.custom_op``'s object), which is also ``torch.ops.namespace.op``.

    The op takes the kernel's inputs as tensors, in declaration order, and returns its output,
    or a tuple of its outputs; it runs on CPU tensors. ``sizes`` binds size symbols that no
    input's dims give. The op has no autograd formula. A name already registered in the process
    is a ValueError."""
    if not isinstance(kernel, athene.Kernel):
        raise TypeError(f"register_op: kernel must be an athene.Kernel (athene.compile(src)[name]), "
                        f"not {type(kernel).__name__}")
    m = _NAME.match(name) if isinstance(name, str) else None
    if m is None:
        raise ValueError(f"register_op: name must be 'namespace::op' or 'op' (identifiers), not {name!r}")
    qualname = f"{m.group(1) or 'athene'}::{m.group(2)}"
    if _exists(qualname):
        raise ValueError(f"register_op: an op named {qualname} is already registered in this process")
    if not kernel.inputs:
        raise ValueError(f"register_op: kernel {kernel.name} has no inputs; an op needs a tensor input")
    spec = _Op(qualname, kernel, sizes or {})
    params = ", ".join(f"Tensor {p.name}" for p in kernel.inputs)
    nout = len(kernel.outputs)
    ret = "Tensor" if nout == 1 else "(" + ", ".join(["Tensor"] * nout) + ")"
    try:
        op = torch.library.custom_op(qualname, spec.run, mutates_args=(), device_types="cpu",
                                     schema=f"({params}) -> {ret}")
    except (RuntimeError, ValueError) as e:
        raise ValueError(f"register_op: cannot register {qualname}: {str(e).splitlines()[0]}") from None
    op.register_fake(spec.fake)
    return op
