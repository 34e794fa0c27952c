"""athene: fused tensor kernels from Python.

    import numpy as np, athene
    mod = athene.compile('''
    kernel axpy(a: f32[], x: f32[N], y: f32[N]) -> (z: f32[N]) {
        z[i] = a[] * x[i] + y[i]
    }
    ''')
    z = mod.axpy(np.float32(2), x, y)

See README.md for the rules on layouts, caching, errors and the registry.
"""

from ._core import (BFLOAT16, CACHE_LIMIT, CacheInfo, Kernel, Layout, Module, Param, compile, compile_count, load,
                    memory_in_use, set_threads, threads, wait_compiled)
from ._errors import CompileError, Error, RunError
from ._registry import call, list, lookup, register, unregister

__version__ = "0.1.0"

__all__ = ["compile", "load", "Module", "Kernel", "Param", "Layout", "CacheInfo", "Error", "CompileError", "RunError",
           "register", "call", "list", "lookup", "unregister", "compile_count", "memory_in_use", "set_threads",
           "threads", "wait_compiled", "BFLOAT16", "CACHE_LIMIT", "__version__"]
