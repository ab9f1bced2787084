"""GPU tests: run on an sm_90a machine (the device round), skipped elsewhere.

Kernels come from an AOT directory ($FA_MLIR_BUNDLE_PATH, built on the
compiler machine by run_device.sh) or from the compiler when present.
"""
import pytest

torch = pytest.importorskip("torch")


def pytest_collection_modifyitems(config, items):
    reason = None
    if not torch.cuda.is_available():
        reason = "no CUDA device"
    elif torch.cuda.get_device_capability() != (9, 0):
        reason = "the GPU kernels are sm_90a (H100/H200) kernels"
    if reason:
        for item in items:
            if "/gpu/" in str(item.fspath):
                item.add_marker(pytest.mark.skip(reason=reason))
