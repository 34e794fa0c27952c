"""Fixtures the package's tests share."""

import os

import pytest


@pytest.fixture(scope="module")
def private_inductor_cache(tmp_path_factory):
    """A private Inductor cache for one module's compiles (torch.compile tests), so runs share no
    cached graphs; the environment is restored afterwards."""
    old = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path_factory.mktemp("inductor_cache"))
    yield
    if old is None:
        del os.environ["TORCHINDUCTOR_CACHE_DIR"]
    else:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = old
