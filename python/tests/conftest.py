"""Shared setup: a fresh bundle cache per test session, so that runs are
hermetic and the cache tests see only their own entries."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # the fa_mlir package
REPO = os.path.dirname(os.path.dirname(HERE))
os.environ.setdefault("FA_BUILD_DIR", os.path.join(REPO, "build"))


@pytest.fixture(scope="session", autouse=True)
def session_cache(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("fa_mlir_cache"))
    old = os.environ.get("FA_MLIR_CACHE")
    os.environ["FA_MLIR_CACHE"] = path
    yield path
    if old is None:
        os.environ.pop("FA_MLIR_CACHE", None)
    else:
        os.environ["FA_MLIR_CACHE"] = old
