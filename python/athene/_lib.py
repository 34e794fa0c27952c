"""ctypes bindings of libathene (include/athene.h), loaded from the package directory.

Only what the package uses is declared. ctypes.CDLL releases the GIL for the length of every
foreign call, so athene_run lets other Python threads go on.
"""

from __future__ import annotations

import ctypes
import os
from ctypes import POINTER, c_char, c_char_p, c_int, c_int64, c_longlong, c_size_t, c_void_p

MAX_RANK = 8
UNTOUCHED = 2  # athene_run's ATHENE_UNTOUCHED

# athene_dtype, in enum order
DTYPE_NAMES = ("bool", "i8", "i16", "i32", "i64", "u8", "f16", "bf16", "f32", "f64")


class Param(ctypes.Structure):
    _fields_ = [
        ("name", c_char_p),
        ("dtype", c_int),
        ("is_output", c_int),
        ("rank", c_int),
        ("shape", c_int64 * MAX_RANK),
        ("strides", c_int64 * MAX_RANK),
        ("offset", c_int64),
        ("storage_elems", c_int64),
    ]


class Status(ctypes.Structure):
    _fields_ = [("failed", c_int), ("message", c_char * 2048)]


def _find() -> str:
    path = os.environ.get("ATHENE_LIBRARY")
    if path:
        return path
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libathene.so")


lib = ctypes.CDLL(_find())

_I64P = POINTER(c_int64)

_SIGNATURES = {
    "athene_create": (c_void_p, []),
    "athene_destroy": (None, [c_void_p]),
    "athene_errors": (c_char_p, [c_void_p]),
    "athene_load": (c_int, [c_void_p, c_char_p, c_char_p]),
    "athene_kernel_count": (c_int, [c_void_p]),
    "athene_kernel_at": (c_void_p, [c_void_p, c_int]),
    "athene_kernel_name": (c_char_p, [c_void_p]),
    "athene_kernel_nparams": (c_int, [c_void_p]),
    "athene_kernel_ninputs": (c_int, [c_void_p]),
    "athene_param_name": (c_char_p, [c_void_p, c_int]),
    "athene_param_dtype": (c_int, [c_void_p, c_int]),
    "athene_param_rank": (c_int, [c_void_p, c_int]),
    "athene_param_dim_sym": (c_int, [c_void_p, c_int, c_int]),
    "athene_param_declares_layout": (c_int, [c_void_p, c_int]),
    "athene_size_count": (c_int, [c_void_p]),
    "athene_kernel_dump": (c_char_p, [c_void_p, c_char_p]),
    "athene_size_name": (c_char_p, [c_void_p, c_int]),
    "athene_instance": (c_void_p, [c_void_p]),
    "athene_instance_free": (None, [c_void_p]),
    "athene_inst_errors": (c_char_p, [c_void_p]),
    "athene_bind_size": (c_int, [c_void_p, c_char_p, c_int64]),
    "athene_bind_size_from": (c_int, [c_void_p, c_char_p, c_int64, c_char_p]),
    "athene_bind_shape": (c_int, [c_void_p, c_int, c_int, _I64P]),
    "athene_bind_layout": (c_int, [c_void_p, c_int, _I64P, c_int64]),
    "athene_size_value": (c_int, [c_void_p, c_int, _I64P]),
    "athene_compile": (c_int, [c_void_p]),
    "athene_param_info": (c_int, [c_void_p, c_int, POINTER(Param)]),
    "athene_explain": (c_char_p, [c_void_p, c_char_p, c_int]),
    "athene_dump": (c_char_p, [c_void_p, c_char_p, c_char_p]),
    "athene_run": (c_int, [c_void_p, c_void_p, c_int, POINTER(Status)]),
    "athene_run_checked": (c_int, [c_void_p, c_void_p, _I64P, c_int, POINTER(Status)]),
    "athene_inst_clean_errors": (c_int, [c_void_p]),
    "athene_alloc": (c_void_p, [c_size_t]),
    "athene_free": (None, [c_void_p, c_size_t]),
    "athene_set_threads": (None, [c_int]),
    "athene_threads": (c_int, []),
    "athene_wait_compiled": (c_longlong, []),
    "athene_set_team": (None, [c_void_p]),
    "athene_team_runs": (c_longlong, []),
    "athene_memory_in_use": (c_longlong, []),
    "athene_dtype_size": (c_size_t, [c_int]),
}

for _name, (_res, _args) in _SIGNATURES.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

# The Pallas emitter, where this build of the library has it.
HAS_EMIT = hasattr(lib, "athene_emit")
if HAS_EMIT:
    lib.athene_emit.restype = c_char_p
    lib.athene_emit.argtypes = [c_void_p, c_int, c_char_p, c_char_p]


def _fast_path() -> str:
    """Where the extension athene._fast is looked for when it is not installed in the package:
    ATHENE_FAST, else `_fast.so` beside the library (the Makefile builds both into one folder)."""
    return os.environ.get("ATHENE_FAST") or os.path.join(os.path.dirname(os.path.abspath(_find())), "_fast.so")


def load_fast():
    """The C extension athene._fast (the per-call entry of athene.torch's kernels), as
    (module, None), or (None, why) when it is switched off (ATHENE_FAST=0), not built or does
    not load. It links neither torch nor this library: the caller hands it athene_run_checked."""
    if os.environ.get("ATHENE_FAST") == "0":
        return None, "ATHENE_FAST=0"
    if not os.environ.get("ATHENE_FAST"):
        try:
            from . import _fast  # type: ignore[attr-defined]  # installed beside this file

            return _fast, None
        except ImportError:
            pass
    import importlib.util

    path = _fast_path()
    if not os.path.isfile(path):
        return None, f"{path} not found"
    try:
        spec = importlib.util.spec_from_file_location("athene._fast", path)
        mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(mod)  # type: ignore[union-attr]
    except (ImportError, OSError) as e:
        return None, f"{path} does not load: {e}"
    return mod, None


def address(fn) -> int:
    """The address of a function of the library (for athene._fast)."""
    return ctypes.cast(fn, c_void_p).value or 0


def text(b: bytes | None) -> str:
    return b.decode("utf-8", "replace") if b is not None else ""


def i64_array(values) -> ctypes.Array:
    return (c_int64 * max(1, len(values)))(*values)
