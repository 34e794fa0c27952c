# athene: POSIX make. `make` builds the library and tool, `make test` runs
# every test, `make asan` runs the C tests and examples under ASan+UBSan.
CC      ?= cc
CFLAGS  ?= -O2 -g
# -ffp-contract=off: no multiply and add fused unless the code says so, so
# that the interpreter's scalar steps and the executor's vector ones give
# the same bits (base/narrow.c) whichever compiler and target
WARN     = -std=c11 -Wall -Wextra -Werror -ffp-contract=off
CPPFLAGS = -Iinclude -Isrc -D_POSIX_C_SOURCE=200809L
LDLIBS   = -lm -lpthread
B        = build
PY       = .venv/bin/python

# The library's sources, a folder per layer (docs/architecture.md): base/
# (containers, dtypes, ops, scalar semantics, .npy), front/ (lexer, parser,
# checker, the AST), analysis/ (bind, sym, lower, view, plan, body), oracle/
# (the interpreter), the backends cpu/ and pallas/, and the driver on top.
LIBSRC = $(wildcard src/base/*.c src/ast/*.c src/front/*.c src/analysis/*.c src/oracle/*.c src/cpu/*.c src/pallas/*.c) \
         src/explain.c src/backends.c src/api.c
HDRS   = include/athene.h $(wildcard src/*.h src/*/*.h)

all: $(B)/athene $(B)/libathene.a $(B)/libathene.so

$(B)/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden -DATHENE_BUILD $(CPPFLAGS) -c $< -o $@

LIBOBJ = $(LIBSRC:src/%.c=$(B)/obj/%.o)

$(B)/libathene.a: $(LIBOBJ)
	rm -f $@ && ar rcs $@ $(LIBOBJ)

$(B)/libathene.so: $(LIBOBJ)
	$(CC) -shared -o $@ $(LIBOBJ) $(LDLIBS)

$(B)/athene: src/main.c $(B)/libathene.a
	$(CC) $(WARN) $(CFLAGS) -Iinclude -D_POSIX_C_SOURCE=200809L src/main.c $(B)/libathene.a -o $@ $(LDLIBS)

$(B)/%_test: tests/%_test.c tests/testlib.h $(B)/libathene.a
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) $< $(B)/libathene.a -o $@ $(LDLIBS)

CTESTS = $(B)/sym_test $(B)/dtype_test $(B)/view_test $(B)/npy_test $(B)/inst_test $(B)/stage_test $(B)/reduce_test $(B)/band_test $(B)/gather_test $(B)/scatter_test $(B)/tuning_test
KTESTS = $(B)/plan_test $(B)/body_test $(B)/jit_test
# The differential test of the executor against the interpreter on random
# kernels (tests/diff_test.c): DIFF_COUNT cases in make test, fewer under
# the sanitizers.
DTESTS = $(B)/diff_test
DIFF_COUNT = 2000
# The executor compiles statements with the system's C compiler in the
# background (cpu/jit.c, ATHENE_JIT). The suite runs the register machine
# (NOJIT: a compile per kernel would double its time on two cores); the
# compiled code is tested on its own: jit_test, diff_test with the first run
# of each case waiting for its compile (DIFF_JIT_COUNT cases), and
# python/tests/test_torch_jit.py.
NOJIT = ATHENE_JIT=0
DIFF_JIT_COUNT = 200

# The test venv: requirements.txt (core), then the optional stacks the
# tests of the Pallas backend and the Python package use, all pinned.
REQS = requirements.txt requirements-jax.txt requirements-torch.txt
$(PY): $(REQS)
	python3 -m venv .venv && for r in $(REQS); do $(PY) -m pip install -q -r $$r || exit 1; done && touch $(PY)

# Example files and the sizes their symbolic kernels run with.
EXAMPLES = $(wildcard examples/*.ath)
EXAMPLE_SIZES = --size N=64 --size D=32 --size V=100 --size S=16 --size B=4 --size M=48 --size K=24

examples: $(B)/athene
	@for f in $(EXAMPLES); do \
	  case $$f in *bad_*) continue;; esac; \
	  echo "== $$f"; ./$(B)/athene run $$f $(EXAMPLE_SIZES) || exit 1; done

SIZEARGS = $(EXAMPLE_SIZES:--size=)

# The layer rules (docs/layers.txt) on the objects: no cycle between files,
# no symbol or #include edge between folders that the rules do not allow.
NM = nm
layers: all
	python3 tests/layers.py --rules docs/layers.txt --src src --obj $(B)/obj --nm $(NM)

test: all layers $(CTESTS) $(KTESTS) $(DTESTS) $(PY)
	@for t in $(CTESTS); do echo "== $$t"; $(NOJIT) ./$$t || exit 1; done
	@for t in $(KTESTS); do echo "== $$t"; $(NOJIT) ./$$t $(SIZEARGS) $(EXAMPLES) || exit 1; done
	@for t in $(DTESTS); do echo "== $$t"; $(NOJIT) ./$$t --count $(DIFF_COUNT) || exit 1; done
	@for t in $(DTESTS); do echo "== $$t (compiled)"; ATHENE_JIT=sync ./$$t --count $(DIFF_JIT_COUNT) --seed 20261207 || exit 1; done
	$(NOJIT) sh tests/run_diag.sh $(B)/athene
	$(NOJIT) sh tests/run_explain.sh $(B)/athene
	$(NOJIT) ATHENE=$(B)/athene $(PY) -m pytest -q tests
	@$(MAKE) --no-print-directory python-test

# What the suite samples, all of it: every full-size example permutation
# through the interpreter and in JAX's interpreter, every kernel through the
# real TPU compiler, PyTorch's whole op database through the athene backend,
# and every program of the backend's list through its Pallas target and every
# kernel of it through the TPU compiler, and the scalar ops' slowest rows
# against their Python reference (the package installed by python-test;
# several minutes; CI runs what it adds to make test, test-rest).
ALL_FILES = tests/test_examples.py tests/pallas tests/test_scalar.py python/tests/test_torch_opdb.py \
	python/tests/test_torch_pallas.py
test-all: all $(PY)
	$(NOJIT) ATHENE_TEST_ALL=1 ATHENE=$(B)/athene $(PY) -m pytest -q $(ALL_FILES)

# What test-all adds to make test: its tests less the ones make test runs
# (tests/leave_out.py). CI runs make test, then this.
test-rest: all $(PY)
	ATHENE=$(B)/athene $(PY) -m pytest -q --rootdir=. --collect-only $(ALL_FILES) > $(B)/sampled.txt
	$(NOJIT) ATHENE_TEST_ALL=1 ATHENE=$(B)/athene PYTHONPATH=tests $(PY) -m pytest -q --rootdir=. -p leave_out --leave-out=$(B)/sampled.txt $(ALL_FILES)

# The package's C extension athene._fast (the per-call entry of athene.torch's
# kernels) for the package run from source: beside the library, where the
# package looks for it (pip install builds its own into the package). It needs
# Python's headers (python3-dev); without them the package calls through ctypes.
PYINC = `$(PY) -c 'import sysconfig; print(sysconfig.get_paths()["include"])'`
$(B)/_fast.so: python/athene/_fast.c include/athene.h
	$(CC) $(WARN) $(CFLAGS) -fPIC -shared -fvisibility=hidden -Iinclude -I$(PYINC) python/athene/_fast.c -o $@

# The Python package (python/), installed into the test venv: its tests, and
# its per-call overhead beside NumPy's.
# PKG_INSTALL installs the package; a tree that shares its venv with another
# sets PKG_INSTALL=: and PKG_ENV to run its own package from source instead.
PKG_INSTALL = $(PY) -m pip install -q ./python
PKG_ENV     =
python-test: $(PY) $(B)/_fast.so
	$(PKG_INSTALL)
	$(NOJIT) $(PKG_ENV) $(PY) -m pytest -q python/tests

python-bench: $(PY)
	$(PY) -m pip install -q ./python
	$(PY) bench/python_overhead.py

ASAN = B=build-asan CC=clang CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

asan:
	$(MAKE) $(ASAN) build-asan/athene $(KTESTS:$(B)/%=build-asan/%) $(CTESTS:$(B)/%=build-asan/%) $(DTESTS:$(B)/%=build-asan/%)
	@for t in $(CTESTS:$(B)/%=build-asan/%); do echo "== $$t"; $(NOJIT) ./$$t || exit 1; done
	@for t in $(KTESTS:$(B)/%=build-asan/%); do echo "== $$t"; $(NOJIT) ./$$t $(SIZEARGS) $(EXAMPLES) || exit 1; done
	@for t in $(DTESTS:$(B)/%=build-asan/%); do echo "== $$t"; $(NOJIT) ./$$t --count 500 || exit 1; done
	@for t in $(DTESTS:$(B)/%=build-asan/%); do echo "== $$t (compiled)"; ATHENE_JIT=sync ./$$t --count 100 || exit 1; done
	$(MAKE) $(ASAN) examples
	ASAN_OPTIONS=allocator_may_return_null=1 sh tests/run_diag.sh build-asan/athene

# ThreadSanitizer (clang): the C tests that run threads (the pool; inst_test's
# gathers on 1-4 threads), and the differential test with 3 threads.
TSAN = B=build-tsan CC=clang CFLAGS="-O1 -g -fsanitize=thread -fno-omit-frame-pointer"
TTESTS = $(B)/stage_test $(B)/inst_test $(B)/reduce_test $(B)/band_test $(B)/gather_test $(B)/scatter_test $(B)/tuning_test $(B)/jit_test

tsan:
	$(MAKE) $(TSAN) $(TTESTS:$(B)/%=build-tsan/%) $(DTESTS:$(B)/%=build-tsan/%)
	@for t in $(TTESTS:$(B)/%=build-tsan/%); do echo "== $$t"; $(NOJIT) ./$$t || exit 1; done
	@for t in $(DTESTS:$(B)/%=build-tsan/%); do echo "== $$t"; $(NOJIT) ./$$t --count 400 --threads 3 || exit 1; done
	@for t in $(DTESTS:$(B)/%=build-tsan/%); do echo "== $$t (compiled, in the background)"; ./$$t --count 100 --threads 3 || exit 1; done

# libFuzzer on the public API, then the mutation fuzzer of the command line,
# then the Python package's fuzzer, all under ASan+UBSan (clang), for
# FUZZ_TIME, FUZZ_CLI_TIME and FUZZ_PY_TIME seconds; then the Pallas
# emitter's differential fuzzer (release build, JAX's interpreter) for
# FUZZ_EMIT_TIME seconds. The package loads the sanitized library with the
# ASan runtime preloaded (Python itself is not sanitized); docs/testing.md.
FUZZ_TIME = 60
FUZZ_CLI_TIME = 60
FUZZ_PY_TIME = 45
FUZZ_EMIT_TIME = 45
FB = $(B)-fuzz
FUZZ = B=$(FB) CC=clang CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

$(B)/fuzz_api: tests/fuzz_api.c $(B)/libathene.a
	$(CC) $(WARN) $(CFLAGS) -fsanitize=fuzzer $(CPPFLAGS) $< $(B)/libathene.a -o $@ $(LDLIBS)

fuzz: all $(PY)
	$(MAKE) $(FUZZ) $(FB)/fuzz_api $(FB)/athene $(FB)/libathene.so
	@mkdir -p $(FB)/corpus
	$(NOJIT) ASAN_OPTIONS=allocator_may_return_null=1 ./$(FB)/fuzz_api -max_total_time=$(FUZZ_TIME) -timeout=30 -print_final_stats=1 -artifact_prefix=$(FB)/ $(FB)/corpus tests/fuzz
	$(NOJIT) ASAN_OPTIONS=allocator_may_return_null=1 python3 tests/fuzz_cli.py $(FB)/athene --seconds $(FUZZ_CLI_TIME)
	$(NOJIT) ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=0 LD_PRELOAD="$$(clang -print-file-name=libclang_rt.asan-$$(uname -m).so)" \
	  ATHENE_LIBRARY="$$PWD/$(FB)/libathene.so" PYTHONPATH=python $(PY) tests/fuzz_python.py --seconds $(FUZZ_PY_TIME) --keep $(FB)/python
	ATHENE=$(B)/athene $(PY) tests/pallas/fuzz_emit.py --seconds $(FUZZ_EMIT_TIME) --keep $(FB)/emit

$(B)/compile_bench: bench/compile_bench.c tests/testlib.h $(B)/libathene.a
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) -Itests $< $(B)/libathene.a -o $@ $(LDLIBS)

$(B)/reliability_bench: bench/reliability_bench.c $(B)/libathene.a
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) $< $(B)/libathene.a -o $@ $(LDLIBS)

$(B)/exec_bench: bench/exec_bench.c tests/testlib.h $(B)/libathene.a
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) -Itests $< $(B)/libathene.a -o $@ $(LDLIBS)

$(B)/emit_bench: bench/emit_bench.c tests/testlib.h $(B)/libathene.a
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) -Itests $< $(B)/libathene.a -o $@ $(LDLIBS)

# The host's memory alone (athene's allocator, none of its kernels): the
# patterns that bound the kernels that miss their targets (docs/performance.md).
$(B)/mem_probe: bench/mem_probe.c $(B)/libathene.a
	$(CC) $(WARN) $(CFLAGS) -Iinclude $< $(B)/libathene.a -o $@ $(LDLIBS)

# The nanoGPT block's slowest small kernels as one compiled loop each,
# against the register machine (docs/torch.md, "Models").
$(B)/loop_probe: bench/loop_probe.c $(B)/libathene.a
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) $< $(B)/libathene.a -o $@ $(LDLIBS)

bench: all $(B)/compile_bench $(B)/reliability_bench $(B)/exec_bench $(B)/emit_bench $(B)/mem_probe $(B)/loop_probe
	./$(B)/compile_bench $(SIZEARGS) $(EXAMPLES)
	./$(B)/emit_bench $(SIZEARGS) $(EXAMPLES)
	ATHENE_JIT=sync ./$(B)/exec_bench bench/perf.ath
	./$(B)/reliability_bench
	./$(B)/mem_probe
	./$(B)/loop_probe
	@$(MAKE) --no-print-directory python-bench

clean:
	rm -rf build build-asan build-tsan

.PHONY: all layers test test-all test-rest asan tsan fuzz examples bench clean python-test python-bench
