"""The kernel registry: kernels registered by name and called by name, the shape of an
accelerator runtime's custom-kernel API (register / call / list / unregister)."""

from __future__ import annotations

import threading
from typing import Any, Dict, List, Mapping, Optional, Union

from ._core import Kernel, Module

_lock = threading.Lock()
_kernels: Dict[str, Kernel] = {}


def register(name: str, source: Union[str, Kernel], *, kernel: Optional[str] = None,
             sizes: Optional[Mapping[str, int]] = None, replace: bool = False,
             filename: Optional[str] = None) -> Kernel:
    """Registers a kernel under ``name`` and returns it.

    ``source`` is a source text (compiled as by :func:`athene.compile`) or a Kernel. ``kernel``
    picks one kernel of a text with several (the default is its only kernel). A name already
    registered is a ValueError unless ``replace=True``."""
    if not isinstance(name, str) or not name:
        raise TypeError("athene.register: name must be a non-empty str")
    if isinstance(source, Kernel):
        if kernel is not None or sizes is not None:
            raise TypeError("athene.register: kernel= and sizes= apply to a source text, not a Kernel")
        k = source
    else:
        mod = Module(source, sizes, filename, _depth=2)
        if kernel is None:
            if len(mod) != 1:
                raise ValueError(f"athene.register: the source has {len(mod)} kernels "
                                 f"({', '.join(mod.kernels)}); pick one with kernel=")
            k = next(iter(mod))
        elif kernel in mod.kernels:
            k = mod[kernel]
        else:
            raise ValueError(f"athene.register: the source has no kernel '{kernel}' ({', '.join(mod.kernels)})")
    with _lock:
        if name in _kernels and not replace:
            raise ValueError(f"athene.register: '{name}' is already registered (pass replace=True)")
        _kernels[name] = k
    return k


def lookup(name: str) -> Kernel:
    """The kernel registered under ``name`` (KeyError when there is none)."""
    try:
        return _kernels[name]
    except KeyError:
        raise KeyError(f"no kernel registered as '{name}' (registered: {', '.join(sorted(_kernels)) or 'none'})") \
            from None


def call(name: str, *arrays: Any, out: Any = None, sizes: Optional[Mapping[str, int]] = None) -> Any:
    """Calls the kernel registered under ``name`` on arrays, as ``kernel(*arrays, out=out)``,
    through the same cache of compiled instances."""
    return lookup(name)(*arrays, out=out, sizes=sizes)


def list() -> List[str]:  # noqa: A001 - the registry's spelling
    """The registered names, sorted."""
    with _lock:
        return sorted(_kernels)


def unregister(name: str) -> None:
    """Removes a registered name (KeyError when there is none). The kernel itself, and its
    cache, live on while anything else holds it."""
    with _lock:
        if name not in _kernels:
            raise KeyError(f"no kernel registered as '{name}'")
        del _kernels[name]
