/* athene._fast: the per-call entry of a kernel of a compiled PyTorch graph.
 *
 * The generated wrapper calls each athene kernel with Inductor's arguments,
 * tensors and size ints. A Kernel of this module is that call: a vectorcall
 * that reads each tensor's data pointer through a C function the caller
 * hands over (torch exports one for its own C++ wrappers), finds the binding
 * of the call's size ints among those it holds, and calls libathene's
 * athene_run_checked on the raw pointers, which checks each storage extent
 * against the bound layout before it runs.
 *
 * Everything that does not change per call is prepared once, in Python: which
 * argument each kernel parameter is, each parameter's item size, which
 * arguments are size ints. A call with size ints not seen yet asks Python's
 * bind(*args) for a compiled instance (and checks the tensors there). A
 * binding whose failing runs may write part of an output keeps a copy of
 * its outputs' bytes, taken before each run and put back when the run
 * fails, where they hold at most SAVE_MAX bytes. A call that this path must
 * not take (such a binding with larger outputs, an output whose storage
 * overlaps an input's, a binding running in another thread) goes through
 * Python's slow(*args), the ctypes path, which copies through temporaries.
 *
 * Neither torch nor libathene is linked: both function pointers come from
 * the caller, so the library is the one ctypes loaded. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <stdint.h>
#include <string.h>

#include "athene.h"

typedef int (*run_fn)(athene_inst *, void *const *, const int64_t *, int, athene_status *);
typedef void *(*data_ptr_fn)(PyObject *);

enum { NBIND = 8 }; /* bindings (distinct size ints) a kernel holds; the oldest goes first */
#define SAVE_MAX ((size_t)1 << 20)

typedef struct {
	PyObject *owner;   /* what bind() returned first: it owns the instance */
	athene_inst *inst; /* NULL: the slot is free */
	int64_t *key;      /* the size ints */
	int64_t *elems;    /* per parameter: storage elements from its pointer on */
	void **storage;    /* per parameter: its pointer in the call running now */
	int flags;         /* athene_run's flags */
	int fast;          /* 0: every call of this binding goes the slow way */
	char *saved;       /* a binding whose failing runs may write part of an output:
	                    * its outputs' bytes before the run, one after the other */
	int busy;          /* running now (the GIL is released while it runs) */
	athene_status st;
} Binding;

typedef struct {
	PyObject_HEAD
	vectorcallfunc vectorcall;
	run_fn run;
	data_ptr_fn data_ptr;
	PyTypeObject *tensor_type;
	PyObject *bind, *slow, *run_error, *name;
	Py_ssize_t nargs;
	int nparams, nin, nsize;
	int *arg_of;   /* per parameter: its argument, or -1 for the zero-stride sizes dummy */
	int *itemsize; /* per parameter */
	int *size_at;  /* per size int: its argument */
	int64_t *key;
	Binding bound[NBIND];
	int next; /* the slot a new binding takes when all are used */
	unsigned long long calls, slow_calls;
} Kernel;

static unsigned long long total_calls, total_slow; /* all kernels, under the GIL */
static unsigned char sizes_dummy[8];

static void binding_clear(Binding *b)
{
	Py_CLEAR(b->owner);
	PyMem_Free(b->key);
	PyMem_Free(b->elems);
	PyMem_Free(b->storage);
	PyMem_Free(b->saved);
	b->saved = NULL;
	b->key = NULL;
	b->elems = NULL;
	b->storage = NULL;
	b->inst = NULL;
}

static int int_list(PyObject *seq, int **out, int *n, const char *what)
{
	PyObject *fast = PySequence_Fast(seq, what);
	if (!fast)
		return -1;
	Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
	*out = PyMem_Calloc(len ? (size_t)len : 1, sizeof **out);
	if (!*out) {
		Py_DECREF(fast);
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < len; i++) {
		long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
		if (v == -1 && PyErr_Occurred()) {
			Py_DECREF(fast);
			return -1;
		}
		(*out)[i] = (int)v;
	}
	*n = (int)len;
	Py_DECREF(fast);
	return 0;
}

static PyObject *kernel_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames);

/* Kernel(name, run, data_ptr, tensor_type, nargs, arg_of, itemsize, nin,
 *        size_at, bind, slow, run_error) */
static PyObject *kernel_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	PyObject *name, *tensor_type, *arg_of, *itemsize, *size_at, *bind, *slow, *run_error;
	unsigned long long run, data_ptr;
	Py_ssize_t nargs;
	int nin;
	if (kw && PyDict_GET_SIZE(kw)) {
		PyErr_SetString(PyExc_TypeError, "athene._fast.Kernel takes no keyword arguments");
		return NULL;
	}
	if (!PyArg_ParseTuple(args, "UKKO!nOOiOOOO:Kernel", &name, &run, &data_ptr, &PyType_Type, &tensor_type,
	                      &nargs, &arg_of, &itemsize, &nin, &size_at, &bind, &slow, &run_error))
		return NULL;
	if (!run || !data_ptr || !PyCallable_Check(bind) || !PyCallable_Check(slow) || nargs < 0) {
		PyErr_SetString(PyExc_ValueError, "athene._fast.Kernel: bad function pointer, callback or count");
		return NULL;
	}
	Kernel *k = (Kernel *)type->tp_alloc(type, 0);
	if (!k)
		return NULL;
	k->vectorcall = kernel_call;
	k->run = (run_fn)(uintptr_t)run;
	k->data_ptr = (data_ptr_fn)(uintptr_t)data_ptr;
	k->nargs = nargs;
	k->nin = nin;
	Py_INCREF(name), k->name = name;
	Py_INCREF(tensor_type), k->tensor_type = (PyTypeObject *)tensor_type;
	Py_INCREF(bind), k->bind = bind;
	Py_INCREF(slow), k->slow = slow;
	Py_INCREF(run_error), k->run_error = run_error;
	int n2 = 0;
	if (int_list(arg_of, &k->arg_of, &k->nparams, "arg_of") || int_list(itemsize, &k->itemsize, &n2, "itemsize") ||
	    int_list(size_at, &k->size_at, &k->nsize, "size_at"))
		goto fail;
	if (n2 != k->nparams || nin < 0 || nin > k->nparams) {
		PyErr_SetString(PyExc_ValueError, "athene._fast.Kernel: arg_of, itemsize and nin disagree");
		goto fail;
	}
	for (int i = 0; i < k->nparams; i++)
		if (k->arg_of[i] < -1 || k->arg_of[i] >= nargs || k->itemsize[i] <= 0) {
			PyErr_SetString(PyExc_ValueError, "athene._fast.Kernel: an argument index or item size is out of range");
			goto fail;
		}
	for (int s = 0; s < k->nsize; s++)
		if (k->size_at[s] < 0 || k->size_at[s] >= nargs) {
			PyErr_SetString(PyExc_ValueError, "athene._fast.Kernel: a size argument index is out of range");
			goto fail;
		}
	k->key = PyMem_Calloc(k->nsize ? (size_t)k->nsize : 1, sizeof *k->key);
	if (!k->key) {
		PyErr_NoMemory();
		goto fail;
	}
	return (PyObject *)k;
fail:
	Py_DECREF(k);
	return NULL;
}

static int kernel_traverse(PyObject *self, visitproc visit, void *arg)
{
	Kernel *k = (Kernel *)self;
	Py_VISIT(k->bind);
	Py_VISIT(k->slow);
	Py_VISIT(k->run_error);
	Py_VISIT(k->tensor_type);
	for (int i = 0; i < NBIND; i++)
		Py_VISIT(k->bound[i].owner);
	return 0;
}

static int kernel_clear(PyObject *self)
{
	Kernel *k = (Kernel *)self;
	Py_CLEAR(k->bind);
	Py_CLEAR(k->slow);
	Py_CLEAR(k->run_error);
	Py_CLEAR(k->tensor_type);
	Py_CLEAR(k->name);
	for (int i = 0; i < NBIND; i++)
		if (!k->bound[i].busy)
			binding_clear(&k->bound[i]);
	return 0;
}

static void kernel_dealloc(PyObject *self)
{
	Kernel *k = (Kernel *)self;
	PyObject_GC_UnTrack(self);
	kernel_clear(self);
	PyMem_Free(k->arg_of);
	PyMem_Free(k->itemsize);
	PyMem_Free(k->size_at);
	PyMem_Free(k->key);
	Py_TYPE(self)->tp_free(self);
}

static PyObject *slow_call(Kernel *k, PyObject *const *args, size_t nargsf)
{
	k->slow_calls++;
	total_slow++;
	return PyObject_Vectorcall(k->slow, args, nargsf, NULL);
}

/* A free slot, or the oldest that is not running; NULL when all run. */
static Binding *free_slot(Kernel *k)
{
	for (int i = 0; i < NBIND; i++)
		if (!k->bound[i].inst)
			return &k->bound[i];
	for (int tries = 0; tries < NBIND; tries++) {
		Binding *old = &k->bound[k->next];
		k->next = (k->next + 1) % NBIND;
		if (!old->busy) {
			binding_clear(old);
			return old;
		}
	}
	return NULL;
}

/* A new binding for the size ints key, from bind(*args) -> (owner, inst
 * address, storage elements per parameter, flags, fast). bind runs Python,
 * so other threads may call this kernel meanwhile: the slot is taken after. */
static Binding *kernel_bind(Kernel *k, PyObject *const *args, size_t nargsf, const int64_t *key)
{
	PyObject *r = PyObject_Vectorcall(k->bind, args, nargsf, NULL);
	if (!r)
		return NULL;
	Binding *b = free_slot(k);
	if (!b) {
		Py_DECREF(r);
		return NULL; /* every slot is running: the slow way */
	}
	PyObject *owner, *elems;
	unsigned long long inst;
	int flags, fast;
	if (!PyArg_ParseTuple(r, "OKOip:bind", &owner, &inst, &elems, &flags, &fast) || !inst) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_ValueError, "athene._fast: bind() gave no instance");
		Py_DECREF(r);
		return NULL;
	}
	PyObject *seq = PySequence_Fast(elems, "bind(): storage elements");
	if (!seq) {
		Py_DECREF(r);
		return NULL;
	}
	if (PySequence_Fast_GET_SIZE(seq) != k->nparams) {
		PyErr_SetString(PyExc_ValueError, "athene._fast: bind() gave storage elements for the wrong number of parameters");
		goto fail;
	}
	b->key = PyMem_Calloc(k->nsize ? (size_t)k->nsize : 1, sizeof *b->key);
	b->elems = PyMem_Calloc(k->nparams ? (size_t)k->nparams : 1, sizeof *b->elems);
	b->storage = PyMem_Calloc(k->nparams ? (size_t)k->nparams : 1, sizeof *b->storage);
	if (!b->key || !b->elems || !b->storage) {
		PyErr_NoMemory();
		goto fail;
	}
	for (int i = 0; i < k->nparams; i++) {
		b->elems[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
		if (b->elems[i] == -1 && PyErr_Occurred())
			goto fail;
	}
	memcpy(b->key, key, (size_t)k->nsize * sizeof *b->key);
	Py_INCREF(owner);
	b->owner = owner;
	b->inst = (athene_inst *)(uintptr_t)inst;
	b->flags = flags;
	b->fast = fast;
	if (!fast) { /* not clean: the C path too, saving its outputs, when they are small */
		size_t bytes = 0;
		for (int o = k->nin; o < k->nparams; o++)
			bytes += (size_t)b->elems[o] * (size_t)k->itemsize[o];
		if (bytes <= SAVE_MAX && (b->saved = PyMem_Malloc(bytes ? bytes : 1)))
			b->fast = 1;
	}
	Py_DECREF(seq);
	Py_DECREF(r);
	return b;
fail:
	binding_clear(b);
	Py_DECREF(seq);
	Py_DECREF(r);
	return NULL;
}

/* Do the storage ranges of an output and an input share a byte? Then the
 * output goes through a temporary (the slow way), as the package's call does. */
static int overlaps(const Kernel *k, const Binding *b)
{
	for (int o = k->nin; o < k->nparams; o++) {
		uintptr_t lo = (uintptr_t)b->storage[o], hi = lo + (uintptr_t)b->elems[o] * (uintptr_t)k->itemsize[o];
		if (lo == hi)
			continue;
		for (int i = 0; i < k->nin; i++) {
			uintptr_t ilo = (uintptr_t)b->storage[i];
			uintptr_t ihi = ilo + (uintptr_t)b->elems[i] * (uintptr_t)k->itemsize[i];
			if (k->arg_of[i] >= 0 && ilo < hi && lo < ihi)
				return 1;
		}
	}
	return 0;
}

/* A binding that saves its outputs: their bytes into b->saved (back:
 * from it into the outputs, after a failed run). */
static void save_outputs(const Kernel *k, const Binding *b, int back)
{
	char *at = b->saved;
	for (int o = k->nin; at && o < k->nparams; o++) {
		size_t n = (size_t)b->elems[o] * (size_t)k->itemsize[o];
		if (n && b->storage[o])
			memcpy(back ? b->storage[o] : at, back ? at : b->storage[o], n);
		at += n;
	}
}

static PyObject *kernel_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
	Kernel *k = (Kernel *)self;
	Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
	if (kwnames && PyTuple_GET_SIZE(kwnames)) {
		PyErr_Format(PyExc_TypeError, "athene kernel %U takes no keyword arguments", k->name);
		return NULL;
	}
	if (nargs != k->nargs) {
		PyErr_Format(PyExc_TypeError, "athene kernel %U takes %zd arguments, %zd given", k->name, k->nargs, nargs);
		return NULL;
	}
	k->calls++;
	total_calls++;
	int64_t small[16], *key = k->nsize <= 16 ? small : k->key; /* k->key: a kernel with many size ints */
	for (int s = 0; s < k->nsize; s++) {
		key[s] = PyLong_AsLongLong(args[k->size_at[s]]);
		if (key[s] == -1 && PyErr_Occurred())
			return NULL;
	}
	Binding *b = NULL;
	for (int i = 0; i < NBIND; i++)
		if (k->bound[i].inst && !memcmp(k->bound[i].key, key, (size_t)k->nsize * sizeof *key)) {
			b = &k->bound[i];
			break;
		}
	if (!b) {
		if (key == k->key) { /* bind() runs Python: another thread may reuse k->key meanwhile */
			key = PyMem_Malloc((size_t)k->nsize * sizeof *key);
			if (!key)
				return PyErr_NoMemory();
			memcpy(key, k->key, (size_t)k->nsize * sizeof *key);
		}
		b = kernel_bind(k, args, nargsf, key);
		if (key != small)
			PyMem_Free(key);
		if (!b) {
			if (PyErr_Occurred())
				return NULL;
			return slow_call(k, args, nargsf);
		}
	}
	if (!b->fast || b->busy)
		return slow_call(k, args, nargsf);
	for (int i = 0; i < k->nparams; i++) {
		int a = k->arg_of[i];
		if (a < 0) {
			b->storage[i] = sizes_dummy;
			continue;
		}
		if (!PyObject_TypeCheck(args[a], k->tensor_type)) {
			PyErr_Format(PyExc_TypeError, "athene kernel %U: argument %d is %s, not a tensor", k->name, a,
			             Py_TYPE(args[a])->tp_name);
			return NULL;
		}
		b->storage[i] = k->data_ptr(args[a]);
	}
	if (overlaps(k, b))
		return slow_call(k, args, nargsf);
	int rc;
	b->busy = 1;
	Py_BEGIN_ALLOW_THREADS
	save_outputs(k, b, 0);
	rc = k->run(b->inst, b->storage, b->elems, b->flags, &b->st);
	if (rc)
		save_outputs(k, b, 1);
	Py_END_ALLOW_THREADS
	b->busy = 0;
	if (rc == -2) {
		PyErr_SetString(PyExc_ValueError, b->st.message);
		return NULL;
	}
	if (rc) {
		size_t n = strlen(b->st.message);
		while (n && b->st.message[n - 1] == '\n')
			n--;
		PyObject *msg = PyUnicode_DecodeUTF8(b->st.message, (Py_ssize_t)n, "replace");
		if (msg) {
			PyErr_SetObject(k->run_error, msg);
			Py_DECREF(msg);
		}
		return NULL;
	}
	Py_RETURN_NONE;
}

static PyObject *kernel_stats(PyObject *self, PyObject *unused)
{
	(void)unused;
	Kernel *k = (Kernel *)self;
	int n = 0, saving = 0;
	for (int i = 0; i < NBIND; i++) {
		n += k->bound[i].inst != NULL;
		saving += k->bound[i].inst && k->bound[i].saved;
	}
	return Py_BuildValue("{s:K,s:K,s:i,s:i}", "calls", k->calls, "slow_calls", k->slow_calls, "bindings", n,
	                     "saving", saving);
}

static PyObject *kernel_repr(PyObject *self)
{
	return PyUnicode_FromFormat("<athene._fast.Kernel %U>", ((Kernel *)self)->name);
}

static PyMethodDef kernel_methods[] = {
	{"stats", kernel_stats, METH_NOARGS, "calls, calls that went the slow way, bindings held, of those saving their outputs"},
	{NULL, NULL, 0, NULL},
};

static PyMemberDef kernel_members[] = {
	{"slow", T_OBJECT, offsetof(Kernel, slow), READONLY, "the Python call the slow way takes"},
	{"name", T_OBJECT, offsetof(Kernel, name), READONLY, "the kernel's name"},
	{NULL, 0, 0, 0, NULL},
};

static PyTypeObject KernelType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "athene._fast.Kernel",
	.tp_basicsize = sizeof(Kernel),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
	.tp_doc = "One athene kernel of a compiled graph, called with Inductor's arguments.",
	.tp_new = kernel_new,
	.tp_dealloc = kernel_dealloc,
	.tp_traverse = kernel_traverse,
	.tp_clear = kernel_clear,
	.tp_call = PyVectorcall_Call,
	.tp_vectorcall_offset = offsetof(Kernel, vectorcall),
	.tp_repr = kernel_repr,
	.tp_methods = kernel_methods,
	.tp_members = kernel_members,
};

static PyObject *fast_calls(PyObject *mod, PyObject *unused)
{
	(void)mod, (void)unused;
	return Py_BuildValue("(KK)", total_calls, total_slow);
}

static PyMethodDef module_methods[] = {
	{"calls", fast_calls, METH_NOARGS, "(calls, of those the slow way) of every Kernel of this module"},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef fast_module = {
	PyModuleDef_HEAD_INIT, "athene._fast", "The per-call entry of athene kernels in compiled PyTorch graphs.", -1,
	module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fast(void)
{
	if (PyType_Ready(&KernelType) < 0)
		return NULL;
	PyObject *m = PyModule_Create(&fast_module);
	if (!m)
		return NULL;
	Py_INCREF(&KernelType);
	if (PyModule_AddObject(m, "Kernel", (PyObject *)&KernelType) < 0) {
		Py_DECREF(&KernelType);
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
