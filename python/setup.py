"""Builds libathene.so from the project's C sources while the package is built.

The library is made by the project's own Makefile (its LIBSRC is the one list of sources, its
flags the one set of flags) into a build folder of this package, then copied into the package.
So `pip install ./python` works from a checkout of the project; the make and C compiler the
project needs (a C11 compiler, POSIX make) must be on PATH.

The C extension athene._fast (the per-call entry of athene.torch's kernels) is built beside it
where Python's headers are installed (python3-dev); where it cannot be built the package is
installed without it, and athene.torch calls its kernels through ctypes (and says so in its log).
"""

import ctypes
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import Distribution, Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        if not (ROOT / "Makefile").is_file() or not (ROOT / "src" / "api.c").is_file():
            raise SystemExit(f"athene: {ROOT} is not the athene source tree (no Makefile, src/api.c); "
                             "install the package from the project's python/ folder")
        out = (HERE / "build" / "libathene").resolve()
        lib = out / "libathene.so"
        make = os.environ.get("MAKE", "make")
        # an outer make's command line (make test B=... CFLAGS=-fsanitize=...) is not this build's
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        subprocess.run([make, "-C", str(ROOT), f"B={out}", str(lib)], check=True, env=env)
        try:  # every symbol must resolve: a shared library links with undefined ones
            ctypes.CDLL(str(lib))
        except OSError as e:
            raise SystemExit(f"athene: the library just built does not load: {e}")
        dest = Path(self.build_lib) / "athene"
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy2(lib, dest / "libathene.so")


class OptionalExtension(build_ext):
    """athene._fast is optional: a failed build is a warning, and the package works without it."""

    def run(self):
        try:
            super().run()
        except Exception as e:  # no compiler for extensions, no Python.h
            self.warn(f"athene: athene._fast not built ({e}); athene.torch will call kernels through ctypes")

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as e:
            self.warn(f"athene: athene._fast not built ({e}); athene.torch will call kernels through ctypes")


FAST = Extension("athene._fast", ["athene/_fast.c"], include_dirs=[str(ROOT / "include")],
                 extra_compile_args=["-std=c11"])


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: tag it for this platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary, "build_ext": OptionalExtension}, distclass=BinaryDistribution,
      ext_modules=[FAST])
