"""The athene library through ctypes, for the Pallas tests: compile a kernel
with bound sizes, emit its Pallas module, make inputs and run the reference
interpreter on them."""
import ctypes
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")
SIZES = {"N": 64, "D": 32, "V": 100, "S": 16, "B": 4, "M": 48, "K": 24}
MAX_RANK = 8
DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.float16, "bfloat16", np.float32, np.float64]


class Param(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int), ("is_output", ctypes.c_int),
                ("rank", ctypes.c_int), ("shape", ctypes.c_int64 * MAX_RANK),
                ("strides", ctypes.c_int64 * MAX_RANK), ("offset", ctypes.c_int64),
                ("storage_elems", ctypes.c_int64)]


class Status(ctypes.Structure):
    _fields_ = [("failed", ctypes.c_int), ("message", ctypes.c_char * 2048)]


def _lib():
    build = os.environ.get("ATHENE", os.path.join(ROOT, "build", "athene"))
    lib = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(build)), "libathene.so"))
    P = ctypes.c_void_p
    for name, res, args in [
            ("athene_create", P, []), ("athene_load", ctypes.c_int, [P, ctypes.c_char_p, ctypes.c_char_p]),
            ("athene_errors", ctypes.c_char_p, [P]), ("athene_kernel_count", ctypes.c_int, [P]),
            ("athene_kernel_at", P, [P, ctypes.c_int]), ("athene_kernel_name", ctypes.c_char_p, [P]),
            ("athene_kernel_nparams", ctypes.c_int, [P]), ("athene_kernel_ninputs", ctypes.c_int, [P]),
            ("athene_size_count", ctypes.c_int, [P]), ("athene_size_name", ctypes.c_char_p, [P, ctypes.c_int]),
            ("athene_instance", P, [P]), ("athene_bind_size", ctypes.c_int, [P, ctypes.c_char_p, ctypes.c_int64]),
            ("athene_bind_shape", ctypes.c_int, [P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int64)]),
            ("athene_find_kernel", P, [P, ctypes.c_char_p]), ("athene_param_index", ctypes.c_int, [P, ctypes.c_char_p]),
            ("athene_param_dim_sym", ctypes.c_int, [P, ctypes.c_int, ctypes.c_int]),
            ("athene_compile", ctypes.c_int, [P]), ("athene_inst_errors", ctypes.c_char_p, [P]),
            ("athene_param_info", ctypes.c_int, [P, ctypes.c_int, ctypes.POINTER(Param)]),
            ("athene_index_range", ctypes.c_int, [P, ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
                                                  ctypes.POINTER(ctypes.c_int64)]),
            ("athene_run", ctypes.c_int, [P, ctypes.POINTER(P), ctypes.c_int, ctypes.POINTER(Status)]),
            ("athene_emit", ctypes.c_char_p, [ctypes.POINTER(P), ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p])]:
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


LIB = _lib()


class Kernel:
    """One kernel instance: its params' layouts, inputs, the reference run."""

    def __init__(self, ctx, k, sizes=None, shapes=None):
        """sizes: {symbol: value} (default SIZES); shapes: {param index: shape} bound first."""
        self.name = LIB.athene_kernel_name(k).decode()
        self.inst = LIB.athene_instance(k)
        for i, shape in (shapes or {}).items():
            arr = (ctypes.c_int64 * max(len(shape), 1))(*shape)
            if LIB.athene_bind_shape(self.inst, i, len(shape), arr):
                raise RuntimeError(LIB.athene_inst_errors(self.inst).decode())
        for s in range(LIB.athene_size_count(k)):
            sym = LIB.athene_size_name(k, s).decode()
            value = (sizes if sizes is not None else SIZES).get(sym)
            if value is not None and LIB.athene_bind_size(self.inst, sym.encode(), value):
                raise RuntimeError(LIB.athene_inst_errors(self.inst).decode())
        if LIB.athene_compile(self.inst):
            raise RuntimeError(LIB.athene_inst_errors(self.inst).decode())
        self.nin = LIB.athene_kernel_ninputs(k)
        self.params = []
        for i in range(LIB.athene_kernel_nparams(k)):
            p = Param()
            LIB.athene_param_info(self.inst, i, ctypes.byref(p))
            self.params.append(p)

    def dtype(self, p):
        import ml_dtypes
        d = DTYPES[p.dtype]
        return np.dtype(ml_dtypes.bfloat16) if d == "bfloat16" else np.dtype(d)

    def declares_layout(self, i):
        p = self.params[i]
        rowmajor, s = [], 1
        for d in reversed(range(p.rank)):
            rowmajor.insert(0, s)
            s *= p.shape[d]
        return p.offset != 0 or [p.strides[d] for d in range(p.rank)] != rowmajor or p.storage_elems != s

    def logical(self, i, storage):
        """The logical array of a parameter from its storage."""
        p = self.params[i]
        shape = tuple(p.shape[d] for d in range(p.rank))
        if 0 in shape:
            return np.zeros(shape, storage.dtype)
        if not self.declares_layout(i):
            return storage.reshape(shape)
        return storage[self.offsets(i)]

    def offsets(self, i):
        """Storage offset of every logical element of parameter i (C order)."""
        p = self.params[i]
        idx = np.full(tuple(p.shape[d] for d in range(p.rank)), p.offset, np.int64)
        for d in range(p.rank):
            idx = idx + np.arange(p.shape[d]).reshape((-1,) + (1,) * (p.rank - d - 1)) * p.strides[d]
        return idx

    def storage(self, i, logical):
        """The storage of parameter i holding a logical array (gaps zero)."""
        p = self.params[i]
        st = np.zeros(max(p.storage_elems, 1), logical.dtype)
        st[self.offsets(i)] = logical
        return st[:p.storage_elems]

    def inputs(self, seed=0):
        """Storage arrays of the inputs: floats in [-2, 2), indices in range."""
        rng = np.random.RandomState(seed)
        out = []
        for i in range(self.nin):
            p = self.params[i]
            dt = self.dtype(p)
            n = p.storage_elems
            lo, hi = ctypes.c_int64(), ctypes.c_int64()
            if np.dtype(dt).kind in "fV" or dt.name == "bfloat16":
                a = rng.uniform(-2, 2, n).astype(dt)
            elif np.dtype(dt) == np.bool_:
                a = rng.randint(0, 2, n).astype(bool)
            elif LIB.athene_index_range(self.inst, i, ctypes.byref(lo), ctypes.byref(hi)) == 0:
                a = rng.randint(lo.value, max(hi.value, lo.value) + 1, n).astype(dt)
            else:
                a = rng.randint(0 if np.dtype(dt).kind == "u" else -8, 8, n).astype(dt)
            out.append(a)
        return out

    def reference(self, storages, outputs=None):
        """Outputs (storage arrays) of the reference interpreter, or the error. outputs: the
        values the outputs start from (those a scatter updates in place read them), else zeros."""
        bufs = [np.ascontiguousarray(s).copy() for s in storages]
        for j, p in enumerate(self.params[self.nin:]):
            start = np.zeros(max(p.storage_elems, 1), self.dtype(p))
            if outputs is not None and outputs[j] is not None:
                start[:p.storage_elems] = np.asarray(outputs[j]).reshape(-1)
            bufs.append(start)
        ptrs = (ctypes.c_void_p * len(bufs))(*[b.ctypes.data for b in bufs])
        st = Status()
        if LIB.athene_run(self.inst, ptrs, 1, ctypes.byref(st)):
            return st.message.decode()
        return bufs[self.nin:]


def load(path):
    ctx = LIB.athene_create()
    src = open(path).read()
    if LIB.athene_load(ctx, path.encode(), src.encode()):
        raise RuntimeError(LIB.athene_errors(ctx).decode())
    return ctx


def load_file(path):
    ctx = load(path)
    return ctx, [Kernel(ctx, LIB.athene_kernel_at(ctx, i)) for i in range(LIB.athene_kernel_count(ctx))]


def emit(kernels, target="pallas", chip=None):
    arr = (ctypes.c_void_p * len(kernels))(*[k.inst for k in kernels])
    text = LIB.athene_emit(arr, len(kernels), target.encode(), chip.encode() if chip else None)
    if text is None:
        raise RuntimeError(LIB.athene_inst_errors(kernels[0].inst).decode())
    return text.decode()
