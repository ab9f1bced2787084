"""Exceptions of fa_mlir; every failure the package reports is one of these.

They derive from the builtin a caller would expect (ValueError for bad
arguments, RuntimeError for failed tools) so that generic handlers work too.
"""


class FaError(Exception):
    """Base class of every fa_mlir error."""


class CompileError(FaError, RuntimeError):
    """fa-opt, fa-compile, mlir-translate or clang rejected the program."""


class UnsupportedError(CompileError, NotImplementedError):
    """The configuration or target is valid but not implemented (yet)."""


class ArgumentError(FaError, ValueError):
    """A tensor or option passed by the caller is wrong (shape, dtype, ...)."""


class BundleError(FaError, RuntimeError):
    """A kernel bundle is missing, unreadable or does not match its use."""


class RuntimeLibraryError(FaError, RuntimeError):
    """libfa_runtime reported a failure; `status` is its fa_status name."""

    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message
