"""Modules, kernels and the cache of compiled instances.

A Module owns one athene context (the kernels of one source text). A Kernel is callable: each
call turns its arguments into one binding of the kernel (sizes, shapes, layouts), looks the
binding up in the kernel's cache of compiled instances, and runs one with the arrays' storage.

Layouts. For a parameter that declares no layout in the source, the array is the logical value:
its strides (bytes, divided by the item size) and its offset become the parameter's layout, so
any NumPy view (slices, negative strides, broadcast zero strides, transposes) is read in place.
For a parameter that declares its layout (`strides(...)`, `offset`), the array is the storage
that layout addresses: a C-contiguous array of the parameter's dtype with at least as many
elements as the layout reaches (its shape is not used; its dims bind no size symbols). A
returned output that declares a layout is its logical view over fresh zeroed storage.
"""

from __future__ import annotations

import builtins
import collections.abc as _abc
import ctypes
import json
import math
import sys
import threading
import weakref
from collections import OrderedDict
from typing import Any, Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import _lib
from ._errors import CompileError, Error, RunError
from ._lib import lib

try:  # bf16 arrays: ml_dtypes' dtype where it is installed, else uint16 bit patterns
    import ml_dtypes as _ml_dtypes

    BFLOAT16: np.dtype = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - depends on the environment
    BFLOAT16 = np.dtype(np.uint16)

_NP = {
    "bool": np.dtype(np.bool_), "i8": np.dtype(np.int8), "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32), "i64": np.dtype(np.int64), "u8": np.dtype(np.uint8),
    "f16": np.dtype(np.float16), "bf16": BFLOAT16, "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}

_TOO_HARD = getattr(np, "exceptions", np).TooHardError

#: Instances a kernel keeps (distinct bindings); the least recently used beyond are freed.
CACHE_LIMIT = 64

_jax_modules: Dict[tuple, Any] = {}  # emitted module text -> its entry point

_stats_lock = threading.Lock()
_compiles = 0


def compile_count() -> int:
    """How many instances (kernel specialisations) have been compiled in this process."""
    return _compiles


def memory_in_use() -> int:
    """Bytes libathene holds for every context, instance and run (athene_memory_in_use)."""
    return int(lib.athene_memory_in_use())


MAX_THREADS = 1024


def set_threads(n: int) -> None:
    """Sets the thread count kernels plan and run for, from 1 to 1024; 0 is the machine's CPU count."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"athene.set_threads: n must be an int, not {type(n).__name__}")
    if not 0 <= n <= MAX_THREADS:
        raise ValueError(f"athene.set_threads: n must be from 0 (the machine's CPU count) to {MAX_THREADS}, not {n}")
    lib.athene_set_threads(int(n))


def threads() -> int:
    """The thread count kernels plan and run for."""
    return int(lib.athene_threads())


def wait_compiled() -> int:
    """Waits until the statements queued for the C compiler are compiled; returns how many statement runs
    have gone through compiled code in this process (see docs/architecture.md, "Compiled statements")."""
    return int(lib.athene_wait_compiled())


class CacheInfo(NamedTuple):
    """A kernel's cache: calls that found a compiled instance, instances compiled, bindings held."""

    hits: int
    compiles: int
    entries: int


class Param(NamedTuple):
    """A kernel parameter as the source declares it."""

    name: str
    dtype: str  # athene's name: "f32", "bf16", ...
    rank: int
    dims: Tuple[Optional[str], ...]  # per dim: its size symbol, or None for a literal
    declares_layout: bool
    is_output: bool
    numpy_dtype: np.dtype  # what arrays for it hold (bf16: BFLOAT16)


class Layout(NamedTuple):
    """A parameter's layout once a binding is compiled: logical shape, element strides into its
    storage, the element offset of element 0, and the storage elements the layout reaches."""

    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    offset: int
    storage_elems: int


class _Context:
    """One athene_ctx; freed (with every instance in it) when the last holder goes."""

    def __init__(self) -> None:
        self.ptr = lib.athene_create()
        if not self.ptr:
            raise MemoryError("athene_create failed")
        self.lock = threading.Lock()  # instance creation and freeing touch the context

    def __del__(self) -> None:
        ptr, self.ptr = getattr(self, "ptr", None), None
        if ptr and lib is not None:
            try:
                lib.athene_destroy(ptr)
            except Exception:  # interpreter shutdown
                pass


class _Inst:
    """One compiled instance, used by one thread at a time (popped from its entry's idle list)."""

    __slots__ = ("ptr", "status", "storage", "spare")

    def __init__(self, ptr: int, nparams: int) -> None:
        self.ptr = ptr
        self.status = _lib.Status()
        self.storage = (ctypes.c_void_p * nparams)()
        self.spare: Dict[int, np.ndarray] = {}  # per output: the temporary an out= run writes first


LINE = 1 << 20  # bytes from which an array athene allocates starts on a cache line
BIG = 32 << 20  # bytes from which it comes from athene_alloc (a temporary it keeps: from LINE on)


def _zeros(n: int, dt: np.dtype, big: Optional[int] = None) -> np.ndarray:
    """n zeroed elements of dt, for an output or a temporary. np.zeros is 16-byte aligned, so from
    LINE bytes on the array starts on a 64-byte line instead: a kernel streaming whole lines into
    it does not read half lines back. From big bytes on it comes from athene_alloc, 2 MiB-aligned
    and on huge pages (no TLB miss per 4 KiB): past glibc's largest heap block (32 MiB) every
    np.zeros is a fresh mapping anyway, and below it the heap's reused pages are cheaper to
    get than fresh huge ones, for an output made anew every call. Freed when the last array
    viewing them goes."""
    nbytes = n * np.dtype(dt).itemsize
    if nbytes < LINE:
        return np.zeros(n, dt)
    if nbytes < (BIG if big is None else big):
        raw = np.zeros(nbytes + 64, np.uint8)
        at = -raw.ctypes.data % 64
        return raw[at:at + nbytes].view(dt)
    p = lib.athene_alloc(nbytes)
    if not p:
        raise MemoryError(f"athene_alloc of {nbytes} bytes failed")
    mem = (ctypes.c_char * nbytes).from_address(p)
    weakref.finalize(mem, lib.athene_free, p, nbytes)
    return np.frombuffer(mem, dt)


class _Entry:
    """What one binding compiled to: idle instances and what a call needs to know about it."""

    __slots__ = ("idle", "adjust", "outs", "min_storage", "span", "copy_out", "may_fail", "dead", "inplace")

    def __init__(self) -> None:
        self.idle: List[_Inst] = []
        self.adjust: List[int] = []  # bytes from the array's data pointer back to storage element 0
        self.outs: List[tuple] = []  # per output: (shape, np dtype, strides in elements, offset, storage elems)
        self.min_storage: List[int] = []  # per param: storage elements the layout reaches
        self.span: List[int] = []  # per param: the same in bytes
        self.copy_out: List[bool] = []  # per output: given with negative strides (bound row-major)
        self.may_fail: Optional[bool] = None
        self.dead = False
        self.inplace: List[bool] = []  # per output: updated in place by a scatter (its values are read)


def _addr_slow(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _addr_fast_check() -> Any:
    """The data pointer of an ndarray read from its object (PyArrayObject's first field after the
    object header: numpy's stable ABI), a tenth of the cost of __array_interface__. Checked
    here against __array_interface__, and not used where they disagree."""
    at = object.__basicsize__
    from_address = ctypes.c_void_p.from_address

    def addr(a: np.ndarray) -> int:
        return from_address(id(a) + at).value or 0

    probe = np.arange(24, dtype=np.float32).reshape(4, 6)
    for v in (probe, probe[1:, ::-2], probe.T, probe[:0], np.float32(1) * probe[0, :1]):
        if addr(v) != _addr_slow(v):
            return _addr_slow
    return addr


_addr = _addr_fast_check()


def _caller_source_name(source: str, depth: int) -> Tuple[str, str]:
    """The name diagnostics give the source, and the text handed to the library.

    When the text appears verbatim in the calling .py file, the name is that file and the text
    is padded so that line and column numbers are those of the file; otherwise `<string>`."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:
        return "<string>", source
    fname = frame.f_code.co_filename
    if not fname.endswith(".py"):
        return "<string>", source
    try:
        with open(fname, encoding="utf-8") as fp:
            text = fp.read()
    except OSError:
        return "<string>", source
    at = text.find(source) if source else -1
    if at < 0:
        return "<string>", source
    line = text.count("\n", 0, at)
    col = at - (text.rfind("\n", 0, at) + 1)
    return fname, "\n" * line + " " * col + source


class Module:
    """The kernels of one source text, as attributes (``mod.softmax``) or items (``mod["softmax"]``)."""

    def __init__(self, source: str, sizes: Optional[Mapping[str, int]] = None,
                 filename: Optional[str] = None, _depth: int = 1) -> None:
        if not isinstance(source, str):
            raise TypeError(f"athene.compile: source must be a str, not {type(source).__name__}")
        if filename is None:
            filename, text = _caller_source_name(source, _depth)
        else:
            text = source
        cname = _c_str(filename, "athene.compile", "filename")
        raw = text.encode()
        nul = raw.find(b"\0")
        if nul >= 0:  # the library reads C strings: refuse, as the command line does, not truncate
            line, col = raw.count(b"\n", 0, nul) + 1, nul - raw.rfind(b"\n", 0, nul)
            raise CompileError(f"{filename}:{line}:{col}: error: a NUL byte; kernel files are text\n")
        self.source = source
        self.filename = filename
        self._ctx = _Context()
        if lib.athene_load(self._ctx.ptr, cname, raw) != 0:
            raise CompileError(_lib.text(lib.athene_errors(self._ctx.ptr)))
        _check_sizes(sizes, "athene.compile")
        self._sizes = {str(k): _as_size(k, v) for k, v in (sizes or {}).items()}
        self._kernels: Dict[str, Kernel] = {}
        for i in range(lib.athene_kernel_count(self._ctx.ptr)):
            k = Kernel(self, lib.athene_kernel_at(self._ctx.ptr, i))
            self._kernels[k.name] = k
        unused = [s for s in self._sizes if not any(s in k.size_names for k in self._kernels.values())]
        if unused:
            raise ValueError(f"athene.compile: no kernel has the size symbol(s) {', '.join(unused)}")

    @property
    def kernels(self) -> Dict[str, "Kernel"]:
        """The kernels by name, in source order."""
        return dict(self._kernels)

    def __getattr__(self, name: str) -> "Kernel":
        kernels = self.__dict__.get("_kernels")
        if kernels is not None and name in kernels:
            return kernels[name]
        raise AttributeError(f"module has no kernel '{name}'" if kernels is not None else name)

    def __getitem__(self, name: str) -> "Kernel":
        return self._kernels[name]

    def __iter__(self) -> Iterator["Kernel"]:
        return iter(self._kernels.values())

    def __len__(self) -> int:
        return len(self._kernels)

    def __dir__(self) -> List[str]:
        return sorted(set(super().__dir__()) | set(self._kernels))

    def __repr__(self) -> str:
        return f"<athene.Module {self.filename}: {', '.join(self._kernels)}>"


def _c_str(v: Any, who: str, what: str) -> bytes:
    """A str argument as the C string the library reads: no NUL byte, which would end it early."""
    if not isinstance(v, str):
        raise TypeError(f"{who}: {what} must be a str, not {type(v).__name__}")
    if "\0" in v:
        raise ValueError(f"{who}: {what} {v!r} has a NUL byte")
    return v.encode()


def _check_sizes(sizes: Any, who: str) -> None:
    if sizes is not None and not isinstance(sizes, _abc.Mapping):
        raise TypeError(f"{who}: sizes= must be a mapping of size symbols to ints (like {{'N': 4}}), "
                        f"not {type(sizes).__name__}")


def _as_size(name: Any, v: Any) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"size {name} must be an int, not {type(v).__name__}")
    v = int(v)
    if not -2**63 <= v < 2**63:
        raise ValueError(f"size {name} is {v}, outside the 64-bit integers")
    return v


class Kernel:
    """One kernel of a Module. Call it on arrays: ``y = k(x, w)`` or ``k(x, w, out=y)``.

    Inputs are positional (in declaration order) or by parameter name. Returns the output array,
    or a tuple of them when the kernel has several."""

    def __init__(self, module: Module, ptr: int) -> None:
        self._module = module  # keeps the context (and so ptr) alive
        self._ctx = module._ctx
        self._ptr = ptr
        self.name: str = _lib.text(lib.athene_kernel_name(ptr))
        n, nin = lib.athene_kernel_nparams(ptr), lib.athene_kernel_ninputs(ptr)
        self._nin, self._np = nin, n
        self.size_names: Tuple[str, ...] = tuple(
            _lib.text(lib.athene_size_name(ptr, s)) for s in range(lib.athene_size_count(ptr)))
        params = []
        for i in range(n):
            rank = lib.athene_param_rank(ptr, i)
            dims = tuple(self.size_names[s] if s >= 0 else None
                         for s in (lib.athene_param_dim_sym(ptr, i, d) for d in range(rank)))
            params.append(Param(_lib.text(lib.athene_param_name(ptr, i)),
                                _lib.DTYPE_NAMES[lib.athene_param_dtype(ptr, i)], rank, dims,
                                bool(lib.athene_param_declares_layout(ptr, i)), i >= nin,
                                _NP[_lib.DTYPE_NAMES[lib.athene_param_dtype(ptr, i)]]))
        self.params: Tuple[Param, ...] = tuple(params)
        self.inputs: Tuple[Param, ...] = self.params[:nin]
        self.outputs: Tuple[Param, ...] = self.params[nin:]
        self._index = {p.name: i for i, p in enumerate(self.params)}
        self._dtype = [_NP[p.dtype] for p in self.params]
        self._accept = [(_NP[p.dtype], np.dtype(np.uint16)) if p.dtype == "bf16" else (_NP[p.dtype],)
                        for p in self.params]
        self._itemsize = [int(lib.athene_dtype_size(lib.athene_param_dtype(ptr, i))) for i in range(n)]
        self._declared = [p.declares_layout for p in self.params]
        self._declared_inputs = [i for i in range(nin) if self._declared[i]]
        self._sizes = {s: v for s, v in module._sizes.items() if s in self.size_names}
        self._cache: "OrderedDict[tuple, _Entry]" = OrderedDict()
        self._hits = 0
        self._compiles = 0
        self.__doc__ = f"athene kernel {self.signature()}"

    # ---- description

    def signature(self) -> str:
        """The kernel's parameters as the source declares them:
        ``embed(table: f32[V, D], idx: i64[S]) -> (out: f32[S, D])``."""
        text = _lib.text(lib.athene_kernel_dump(self._ptr, b"parse"))
        first = text.split("\n", 1)[0].strip()
        if first.startswith("kernel ") and first.endswith("{"):
            return first[len("kernel "):-1].strip()
        return self.name

    def __repr__(self) -> str:
        return f"<athene.Kernel {self.signature()}>"

    def cache_info(self) -> CacheInfo:
        """Hits, compiles and bindings held by this kernel's cache of instances."""
        return CacheInfo(self._hits, self._compiles, len(self._cache))

    def cache_clear(self) -> None:
        """Frees every idle instance of this kernel (instances running now are freed when they end)."""
        with self._ctx.lock:
            entries = list(self._cache.values())
            self._cache.clear()
        for e in entries:
            self._kill(e)

    # ---- calling

    def __call__(self, *args: Any, out: Any = None, sizes: Optional[Mapping[str, int]] = None,
                 **named: Any) -> Any:
        """Runs the kernel: inputs positionally or by name; returns the output, or a tuple of them.

        ``out=`` takes an array, or a tuple with one array (or None) per output, written in place
        and returned. ``sizes=`` binds size symbols the arrays' shapes do not give. Raises
        TypeError (dtype), ValueError (rank, storage, read-only out=), CompileError (binding)
        and RunError (a failed run: inputs untouched, out= not written)."""
        arrays = self._inputs(args, named)
        outs = self._outs(out)
        key, ptrs, keep = self._key(arrays, outs, sizes)
        cache = self._cache
        entry = cache.get(key)
        inst = None
        if entry is not None:
            try:
                inst = entry.idle.pop()
            except IndexError:  # every instance of it is running in another thread
                pass
        if inst is None:
            entry, inst = self._miss(key, entry, arrays, outs, sizes)
        else:
            self._hits += 1
            try:
                cache.move_to_end(key)  # least recently used first
            except KeyError:  # evicted meanwhile by another thread
                pass
        try:
            return self._run(entry, inst, ptrs, outs, keep)
        finally:
            entry.idle.append(inst)
            if entry.dead:
                self._kill(entry)

    def _inputs(self, args: tuple, named: dict) -> list:
        nin = self._nin
        if len(args) > nin:
            raise TypeError(f"kernel {self.name} takes {nin} input(s), {len(args)} given")
        arrays = list(args)
        if named or len(arrays) < nin:
            arrays += [None] * (nin - len(arrays))
            for k, v in named.items():
                i = self._index.get(k)
                if i is None or i >= nin:
                    raise TypeError(f"kernel {self.name} has no input '{k}'")
                if arrays[i] is not None:
                    raise TypeError(f"kernel {self.name}: input '{k}' given twice")
                arrays[i] = v
            missing = [self.params[i].name for i in range(nin) if arrays[i] is None]
            if missing:
                raise TypeError(f"kernel {self.name}: missing input(s) {', '.join(missing)}")
        for i in range(nin):
            a = arrays[i]
            if type(a) is not np.ndarray:
                if a is None:
                    raise TypeError(f"kernel {self.name}: missing input(s) {self.params[i].name}")
                a = arrays[i] = _to_numpy(a, self, i, False)
            dt = a.dtype
            if dt is not self._dtype[i] and dt not in self._accept[i]:
                raise self._dtype_error(i, dt)
        return arrays

    def _outs(self, out: Any) -> Optional[list]:
        if out is None:
            return None
        nout = self._np - self._nin
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        if len(outs) != nout:
            raise TypeError(f"kernel {self.name} has {nout} output(s), out= gives {len(outs)}")
        for j, o in enumerate(outs):
            if o is None:
                continue
            i = self._nin + j
            if type(o) is not np.ndarray:
                o = outs[j] = _to_numpy(o, self, i, True)
            if o.dtype is not self._dtype[i] and o.dtype not in self._accept[i]:
                raise self._dtype_error(i, o.dtype)
            if not o.flags.writeable:
                raise ValueError(f"kernel {self.name}: the out= array for '{self.params[i].name}' is read-only")
        return outs

    def _dtype_error(self, i: int, dt: np.dtype) -> TypeError:
        p = self.params[i]
        want = "bf16 (ml_dtypes.bfloat16, or uint16 bit patterns)" if p.dtype == "bf16" else \
            f"{p.dtype} ({self._dtype[i]})"
        kind = "output" if p.is_output else "parameter"
        return TypeError(f"kernel {self.name}: {kind} '{p.name}' is {want}, but the array given for it is {dt}")

    def _key(self, arrays: list, outs: Optional[list], sizes: Optional[Mapping[str, int]]):
        """The binding of a call as a hashable key, each array's data pointer, and what to keep alive."""
        entries: list = []
        ptrs: list = []
        declared = self._declared
        for i, a in enumerate(arrays if outs is None else arrays + outs):
            if a is None:  # an output to allocate
                entries.append(None)
                ptrs.append(None)
                continue
            p = _addr(a)
            misaligned = p % self._itemsize[i] != 0
            if misaligned and i < self._nin:  # the library loads whole elements: an aligned copy
                a = arrays[i] = np.array(a, order="C", copy=True)
                p = _addr(a)
                misaligned = False
            ptrs.append(p)
            if declared[i]:
                if not a.flags.c_contiguous:
                    what = "output" if i >= self._nin else "parameter"
                    raise ValueError(f"kernel {self.name}: {what} '{self.params[i].name}' declares its layout, so the "
                                     f"array given for it is its storage and must be C-contiguous (strides {a.strides})")
                entries.append(("copy",) if misaligned else None)
            elif misaligned:
                entries.append(("copy", a.shape))  # an output off its alignment: through a temporary
            elif a.flags.c_contiguous:
                entries.append(a.shape)
            elif i >= self._nin and any(st < 0 for st in a.strides):
                entries.append(("copy", a.shape))  # outputs need non-negative strides: through a temporary
            else:
                entries.append((a.shape, a.strides))
        if sizes is not None and type(sizes) is not dict:
            _check_sizes(sizes, f"kernel {self.name}")
        key = (tuple(entries), tuple(sorted(sizes.items())) if sizes else None)
        return key, ptrs, arrays

    def _miss(self, key, entry, arrays, outs, sizes):
        global _compiles
        if entry is None:
            entry = _Entry()
        inst = self._compile(entry, key, arrays, outs, sizes)
        with self._ctx.lock:
            old = self._cache.get(key)
            if old is None:
                self._cache[key] = entry
                while len(self._cache) > CACHE_LIMIT:
                    _, ev = self._cache.popitem(last=False)
                    ev.dead = True
                    self._kill_locked(ev)
            else:
                entry = old
            self._compiles += 1
        with _stats_lock:
            _compiles += 1
        return entry, inst

    def _kill(self, entry: _Entry) -> None:
        with self._ctx.lock:
            self._kill_locked(entry)

    def _kill_locked(self, entry: _Entry) -> None:
        entry.dead = True
        while True:
            try:
                inst = entry.idle.pop()
            except IndexError:
                return
            lib.athene_instance_free(inst.ptr)

    def _new_instance(self) -> _Inst:
        with self._ctx.lock:
            ptr = lib.athene_instance(self._ptr)
        if not ptr:
            raise MemoryError("athene_instance failed")
        return _Inst(ptr, self._np)

    def _free(self, inst: _Inst) -> None:
        with self._ctx.lock:
            lib.athene_instance_free(inst.ptr)

    def _fail(self, inst: _Inst, what: str = "") -> CompileError:
        msg = _lib.text(lib.athene_inst_errors(inst.ptr))
        self._free(inst)
        return CompileError(msg or f"kernel {self.name}: {what} failed")

    def _bind(self, inst: _Inst, arrays: Sequence[Optional[np.ndarray]], outs: Optional[list],
              sizes: Optional[Mapping[str, int]], adjust: Optional[list], layouts: bool = True) -> None:
        """Binds sizes, shapes and layouts of the given arrays to a fresh instance."""
        ptr = inst.ptr
        try:
            _check_sizes(sizes, f"kernel {self.name}")
            for s, v in (sizes or {}).items():
                _as_size(s, v)
        except (TypeError, ValueError):
            self._free(inst)
            raise
        for group in (self._sizes, sizes or {}):  # the module's, then the call's: a conflict is an error
            for s, v in group.items():
                if s not in self.size_names:
                    self._free(inst)
                    raise ValueError(f"kernel {self.name} has no size symbol '{s}'")
                v = _as_size(s, v)
                if lib.athene_bind_size_from(ptr, str(s).encode(), v, f"sizes={{{str(s)!r}: {v}}}".encode()):
                    raise self._fail(inst)
        given = list(arrays) + (list(outs) if outs is not None else [None] * (self._np - self._nin))
        for i, a in enumerate(given):
            if adjust is not None:
                adjust.append(0)
            if a is None or self._declared[i]:
                continue
            p = self.params[i]
            if a.ndim != p.rank:
                self._free(inst)
                kind = "output" if p.is_output else "parameter"
                raise ValueError(f"kernel {self.name}: {kind} '{p.name}' has {p.rank} dim(s) but the array given "
                                 f"for it has {a.ndim}")
            if lib.athene_bind_shape(ptr, i, a.ndim, _lib.i64_array(a.shape)):
                raise self._fail(inst)
            if not layouts or a.flags.c_contiguous or (p.is_output and (any(s < 0 for s in a.strides) or
                                                                       _addr(a) % self._itemsize[i])):
                continue  # (an output through a temporary: bound row-major)
            strides, offset = _element_layout(a, self._itemsize[i], self, i)
            if lib.athene_bind_layout(ptr, i, _lib.i64_array(strides), offset):
                raise self._fail(inst)
            if adjust is not None:
                adjust[i] = offset * self._itemsize[i]

    def _compile(self, entry: _Entry, key, arrays, outs, sizes) -> _Inst:
        inst = self._new_instance()
        fresh = not entry.adjust
        adjust: Optional[list] = [] if fresh else None
        self._bind(inst, arrays, outs, sizes, adjust)
        if lib.athene_compile(inst.ptr):
            raise self._fail(inst)
        if fresh:
            entry.adjust = adjust  # type: ignore[assignment]
            entry.copy_out = [isinstance(e, tuple) and e[:1] == ("copy",) for e in key[0][self._nin:]]
            info = _lib.Param()
            for i in range(self._np):
                lib.athene_param_info(inst.ptr, i, ctypes.byref(info))
                entry.min_storage.append(int(info.storage_elems))
                entry.span.append(int(info.storage_elems) * self._itemsize[i])
                if i >= self._nin:
                    entry.inplace.append(info.is_output == 2)
                    r = info.rank
                    entry.outs.append((tuple(info.shape[:r]), self._dtype[i], tuple(info.strides[:r]),
                                       int(info.offset), int(info.storage_elems)))
        return inst

    def storage_pointers(self, *args: Any, out: Any = None, sizes: Optional[Mapping[str, int]] = None,
                         **named: Any) -> List[int]:
        """The storage address of every parameter that a call with these arrays hands the library
        (outputs not given: 0). For checking that arrays are read and written in place."""
        arrays = self._inputs(args, named)
        outs = self._outs(out)
        key, ptrs, _ = self._key(arrays, outs, sizes)
        entry = self._cache.get(key)
        if entry is None or not entry.adjust:
            entry, inst = self._miss(key, entry, arrays, outs, sizes)
            entry.idle.append(inst)
        ptrs = ptrs + [None] * (self._np - len(ptrs))
        return [p - a if p is not None else 0 for p, a in zip(ptrs, entry.adjust)]

    def _run(self, entry: _Entry, inst: _Inst, ptrs: list, outs: Optional[list], arrays: list) -> Any:
        nin = self._nin
        storage = inst.storage
        adjust = entry.adjust
        for i in self._declared_inputs:
            if arrays[i].size < entry.min_storage[i]:
                raise ValueError(f"kernel {self.name}: the storage given for '{self.params[i].name}' has "
                                 f"{arrays[i].size} elements; its layout reaches {entry.min_storage[i]}")
        for i in range(nin):
            storage[i] = ptrs[i] - adjust[i]
        results = []
        copies = None
        for j, (shape, dt, strides, offset, elems) in enumerate(entry.outs):
            i = nin + j
            o = outs[j] if outs is not None else None
            if o is None:
                if self._declared[i]:
                    buf = self._alloc(i, max(elems, 1), dt, shape)
                    results.append(_logical_view(buf, shape, strides, offset))
                else:
                    buf = self._alloc(i, math.prod(shape), dt, shape).reshape(shape)
                    results.append(buf)
                storage[i] = _addr(buf)
                continue
            if self._declared[i]:
                if o.size < elems:
                    raise ValueError(f"kernel {self.name}: the out= storage for '{self.params[i].name}' has "
                                     f"{o.size} elements; its layout reaches {elems}")
                view = _logical_view(o.reshape(-1), shape, strides, offset)
            else:
                view = o
            results.append(view)
            if self._must_copy(entry, inst, ptrs, i):
                tmp = inst.spare.get(j)
                if tmp is None:  # kept with the instance: a fresh one would cost its page faults every call
                    tmp = inst.spare[j] = _zeros(max(elems, 1), dt, LINE)
                if copies is None:
                    copies = []
                staged = _logical_view(tmp, shape, strides, offset)
                if entry.inplace[j]:  # a scatter updates it: the temporary starts from its values
                    np.copyto(staged, view)
                copies.append((view, staged))
                storage[i] = _addr(tmp)
            else:
                storage[i] = ptrs[i] - adjust[i]
        if outs is not None and len(outs) > 1:
            self._disjoint(outs, results)
        st = inst.status
        # out= written in place by a kernel whose failing runs leave outputs as they were
        flags = _lib.UNTOUCHED if outs is not None and entry.may_fail is False else 0
        if lib.athene_run(inst.ptr, storage, flags, st):
            raise RunError(_lib.text(st.message).rstrip("\n") or f"kernel {self.name}: run failed")
        if copies is not None:
            for dst, src in copies:
                np.copyto(dst, src)
        return results[0] if len(results) == 1 else tuple(results)

    def _disjoint(self, outs: list, views: list) -> None:
        """out= arrays of two outputs must not share an element: the second would overwrite the
        first (a temporary cannot help: both results cannot live in one memory)."""
        given = [(j, views[j]) for j, o in enumerate(outs) if o is not None]
        for a in range(len(given)):
            for b in range(a + 1, len(given)):
                (ja, va), (jb, vb) = given[a], given[b]
                if not np.may_share_memory(va, vb):
                    continue
                try:
                    shared = np.shares_memory(va, vb, max_work=1 << 20)
                except _TOO_HARD:
                    shared = True
                if shared:
                    pa, pb = self.outputs[ja].name, self.outputs[jb].name
                    raise ValueError(f"kernel {self.name}: the out= arrays for '{pa}' and '{pb}' share memory")

    def _alloc(self, i: int, n: int, dt: np.dtype, shape: tuple) -> np.ndarray:
        """Zeroed storage of n elements for output i, or a MemoryError naming it."""
        try:
            return _zeros(n, dt)
        except (MemoryError, OverflowError, ValueError):
            pass
        raise MemoryError(f"kernel {self.name}: cannot allocate output '{self.params[i].name}' of shape "
                          f"{tuple(shape)}: {n} elements of {dt.itemsize} bytes")

    def _must_copy(self, entry: _Entry, inst: _Inst, ptrs: list, i: int) -> bool:
        """Does out= parameter i go through a temporary? Yes where a failing run may have written
        part of an output (so out= is never partly written), where it has negative strides, and
        where its storage overlaps an input's."""
        if entry.may_fail is None:
            entry.may_fail = not lib.athene_inst_clean_errors(inst.ptr)
        if entry.may_fail or entry.copy_out[i - self._nin]:
            return True
        span = entry.span
        lo = ptrs[i] - entry.adjust[i]
        hi = lo + span[i]
        for k in range(self._nin):
            klo = ptrs[k] - entry.adjust[k]
            if klo < hi and lo < klo + span[k]:
                return True
        return False

    # ---- looking inside

    def _bound(self, args: tuple, named: dict, sizes: Optional[Mapping[str, int]], layouts: bool = True) -> _Inst:
        """A fresh compiled instance bound from whatever arrays are given (for explain and dumps)."""
        nin = self._nin
        arrays: list = list(args) + [None] * (nin - len(args))
        for k, v in named.items():
            if k not in self._index or self._index[k] >= nin:
                raise TypeError(f"kernel {self.name} has no input '{k}'")
            arrays[self._index[k]] = v
        for i, a in enumerate(arrays):
            if a is not None and type(a) is not np.ndarray:
                arrays[i] = _to_numpy(a, self, i, False)
        inst = self._new_instance()
        self._bind(inst, arrays, None, sizes, None, layouts)
        if lib.athene_compile(inst.ptr):
            raise self._fail(inst)
        return inst

    def explain(self, *arrays: Any, target: str = "cpu", sizes: Optional[Mapping[str, int]] = None,
                **named: Any) -> str:
        """What the analysis made of every access and the block plan for target ("cpu" or "tpu"),
        as `athene explain` prints it. Sizes come from the given arrays (any subset of the inputs,
        their layouts included), from ``sizes=`` and from the module's sizes."""
        t = _c_str(target, f"kernel {self.name}", "target")
        return self._text(arrays, named, sizes, lambda p: lib.athene_explain(p, t, 0))

    def plan(self, *arrays: Any, target: str = "cpu", sizes: Optional[Mapping[str, int]] = None,
             **named: Any) -> Dict[str, Any]:
        """The block plan for target as a dict (the JSON of `athene explain --json`)."""
        t = _c_str(target, f"kernel {self.name}", "target")
        text = self._text(arrays, named, sizes, lambda p: lib.athene_explain(p, t, 1))
        plans = json.loads(text)
        return plans[0] if isinstance(plans, list) else plans

    def layouts(self, *arrays: Any, sizes: Optional[Mapping[str, int]] = None, **named: Any) -> Dict[str, Layout]:
        """Every parameter's layout for a binding (arrays and sizes as for explain): what storage
        a parameter that declares its layout needs, and the shapes of the outputs."""
        inst = self._bound(arrays, named, sizes)
        try:
            info = _lib.Param()
            res = {}
            for i, p in enumerate(self.params):
                lib.athene_param_info(inst.ptr, i, ctypes.byref(info))
                r = info.rank
                res[p.name] = Layout(tuple(info.shape[:r]), tuple(info.strides[:r]), int(info.offset),
                                     int(info.storage_elems))
            return res
        finally:
            self._free(inst)

    def dump(self, pass_name: str, *arrays: Any, target: str = "cpu",
             sizes: Optional[Mapping[str, int]] = None, **named: Any) -> str:
        """The IR after a pass (`athene -d PASS`): "bind", "inline", ..., "body"."""
        pn, t = _c_str(pass_name, f"kernel {self.name}", "pass_name"), _c_str(target, f"kernel {self.name}", "target")
        return self._text(arrays, named, sizes, lambda p: lib.athene_dump(p, pn, t))

    def pallas(self, *arrays: Any, sizes: Optional[Mapping[str, int]] = None, target: str = "pallas",
               chip: Optional[str] = None, **named: Any) -> str:
        """The emitted Pallas module (Python source) of this kernel for one binding of its sizes.

        Sizes come from the shapes of the given arrays, ``sizes=`` and the module's sizes (the
        module's entry point takes logical, contiguous arrays: an array's strides are not part
        of it). ``target`` is "pallas" (TPU, or JAX's interpreter on a CPU; the
        library reserves "pallas-gpu"); ``chip`` ("v5e", "v6e", "v4") is recorded in the module."""
        if not _lib.HAS_EMIT:
            raise NotImplementedError("this build of libathene has no Pallas emitter (athene_emit)")
        t = _c_str(target, f"kernel {self.name}", "target")
        c = _c_str(chip, f"kernel {self.name}", "chip") if chip is not None else None
        return self._text(arrays, named, sizes, lambda p: lib.athene_emit((ctypes.c_void_p * 1)(p), 1, t, c),
                          layouts=False)

    def to_jax(self, *arrays: Any, sizes: Optional[Mapping[str, int]] = None, interpret: Optional[bool] = None,
               **named: Any) -> Any:
        """A JAX callable of this kernel for one binding of its sizes (as for :meth:`pallas`),
        built from the emitted Pallas module: ``f(*inputs)`` takes the kernel's inputs (logical
        shapes; storage for a parameter that declares its layout) and returns its outputs as JAX
        arrays. It runs compiled on a TPU and in Pallas' interpreter elsewhere, unless
        ``interpret`` says which. Needs JAX; a module with 64-bit tensors turns on jax_enable_x64."""
        import functools
        import types

        src = self.pallas(*arrays, sizes=sizes, **named)
        key = ("to_jax", src)
        fn = _jax_modules.get(key)
        if fn is None:
            mod = types.ModuleType(f"athene_pallas_{self.name}")
            mod.__dict__["__source__"] = src
            exec(builtins.compile(src, f"<athene pallas module of {self.name}>", "exec"), mod.__dict__)
            fn = _jax_modules[key] = getattr(mod, self.name)
        if interpret is None:
            return fn
        return functools.partial(fn, interpret=interpret)

    def _text(self, arrays, named, sizes, fn, layouts: bool = True) -> str:
        inst = self._bound(arrays, named, sizes, layouts)
        try:
            out = fn(inst.ptr)
            if out is None:
                raise CompileError(_lib.text(lib.athene_inst_errors(inst.ptr)))
            return _lib.text(out)
        finally:
            self._free(inst)


def _element_layout(a: np.ndarray, itemsize: int, k: Kernel, i: int) -> Tuple[List[int], int]:
    """An array's strides in elements and the offset of its element 0 from its lowest element."""
    strides, offset = [], 0
    for n, s in zip(a.shape, a.strides):
        if n == 1:
            s = 0
        if s % itemsize:
            raise ValueError(f"kernel {k.name}: the array given for '{k.params[i].name}' has a byte stride of {s}, "
                             f"not a multiple of its item size {itemsize}")
        s //= itemsize
        strides.append(s)
        if s < 0 and n > 0:
            offset -= s * (n - 1)
    if a.size == 0:
        offset = 0
    return strides, offset


def _logical_view(buf: np.ndarray, shape, strides, offset: int) -> np.ndarray:
    """The array a layout (element strides, offset) describes over flat storage buf."""
    item = buf.itemsize
    if not shape or min(shape) > 0:
        base = buf[offset:] if offset else buf
    else:
        base = buf
    return np.lib.stride_tricks.as_strided(base, shape=shape, strides=[s * item for s in strides],
                                           writeable=True)


def _to_numpy(x: Any, k: Kernel, i: int, is_out: bool) -> np.ndarray:
    """A NumPy array over x's memory (torch tensors, JAX arrays, anything with DLPack or the
    buffer protocol); other values (lists, scalars) are converted to the parameter's dtype."""
    p = k.params[i]
    mod = type(x).__module__.split(".")[0]
    if mod == "torch":
        import torch

        if x.device.type != "cpu":
            raise TypeError(f"kernel {k.name}: '{p.name}' is a torch tensor on {x.device}; athene runs on CPU tensors")
        if x.requires_grad:
            x = x.detach()
        if x.dtype == torch.bfloat16:
            return x.view(torch.int16).numpy().view(BFLOAT16)
        return x.numpy()  # the tensor's memory, strides and all, writable (DLPack's would be read-only)
    if mod in ("jax", "jaxlib"):
        if is_out:
            raise ValueError(f"kernel {k.name}: JAX arrays are immutable and cannot be out= for '{p.name}'")
        try:
            return np.from_dlpack(x)
        except (TypeError, BufferError, RuntimeError):
            return np.asarray(x)  # bf16: through the buffer protocol, still no copy on CPU
    if hasattr(x, "__dlpack__"):
        return np.from_dlpack(x)
    if hasattr(x, "__array_interface__") or hasattr(x, "__array__"):
        return np.asarray(x)
    if isinstance(x, memoryview):
        return np.asarray(x)
    if is_out:
        raise TypeError(f"kernel {k.name}: out= for '{p.name}' must be an array, not {type(x).__name__}")
    return _convert(x, k, i)


def _convert(x: Any, k: Kernel, i: int) -> np.ndarray:
    """A list or Python scalar as an array of parameter i's dtype, when every value converts
    exactly (a float to a float dtype rounds, as a literal would); anything else is a TypeError."""
    p = k.params[i]
    want = k._dtype[i]

    def refuse(why: str) -> TypeError:
        return TypeError(f"kernel {k.name}: parameter '{p.name}' is {p.dtype}, but the value given for it "
                         f"({_short(x)}) {why}")

    if isinstance(x, (str, bytes, bytearray)):
        raise refuse("is text, not numbers")
    try:
        with np.errstate(all="ignore"):
            a = np.asarray(x)
    except (ValueError, TypeError, OverflowError) as e:
        raise refuse(f"is not an array of numbers ({e})") from None
    if a.dtype.kind not in "biuf":
        raise refuse(f"is not an array of numbers (NumPy makes it {a.dtype})")
    if a.dtype == want:
        return a
    try:
        with np.errstate(all="ignore"):
            c = a.astype(want)
            back = c.astype(a.dtype) if want.kind != "f" and want != BFLOAT16 else c
            if want.kind in "biu":
                exact = bool(np.all(back == a)) and not (a.dtype.kind == "f" and np.isnan(a).any())
            else:  # a float dtype: rounding is fine, overflow to inf is not
                exact = bool(np.all(np.isfinite(c.astype(np.float64)) | ~np.isfinite(a.astype(np.float64))))
    except (ValueError, TypeError, OverflowError) as e:
        raise refuse(f"does not convert to it ({e})") from None
    if not exact:
        raise refuse("does not convert to it exactly")
    return c


def _short(x: Any) -> str:
    r = repr(x)
    return r if len(r) <= 40 else r[:37] + "..."


def compile(source: str, sizes: Optional[Mapping[str, int]] = None, *, filename: Optional[str] = None) -> Module:
    """Compiles every kernel of a source text; returns a Module with the kernels as attributes.

    ``sizes`` binds size symbols for every kernel that has them (the rest come from the shapes of
    the arrays a kernel is called on). Raises CompileError with the diagnostics
    (``file:line:col: error: ...``); the file is the calling .py file when the text appears in it
    verbatim (line and column are then the file's), else ``<string>``, or ``filename`` if given."""
    return Module(source, sizes, filename, _depth=2)


def load(path: str, sizes: Optional[Mapping[str, int]] = None) -> Module:
    """Compiles a kernel file (``.ath``)."""
    with open(path, encoding="utf-8") as fp:
        return Module(fp.read(), sizes, str(path))


__all__ = ["Module", "Kernel", "Param", "Layout", "CacheInfo", "compile", "load", "compile_count", "memory_in_use",
           "set_threads", "threads", "BFLOAT16", "Error", "CompileError", "RunError"]
