"""fa-compile mocked: the sm_90a compile step without a Hopper back end.
The "compiler" copies files of test/Runtime/Inputs (bundles and sequences
over the stub cubin) into the output folder and exits with `rc`."""
import os
import shutil
import subprocess

from fa_mlir import compiler

INPUTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "test", "Runtime", "Inputs")


FAKE = "fa-compile"


def fake_fa_compile(monkeypatch, writes=(), rc=0, stderr=""):
    """Replaces fa-compile; returns the list of command lines it was run
    with. Every other command (fa-opt, clang: a CPU kernel an earlier test
    prefetches on a background thread may still be compiling) runs for
    real and is not recorded, so that `calls` holds fa-compile's alone."""
    calls = []
    real_run = subprocess.run

    def run(cmd, **kwargs):
        if cmd[0] != FAKE:
            return real_run(cmd, **kwargs)
        calls.append(cmd)
        out = cmd[cmd.index("-o") + 1]
        for name in writes:
            shutil.copy2(os.path.join(INPUTS, name), out)
        return subprocess.CompletedProcess(cmd, rc, "", stderr)
    monkeypatch.setattr(compiler, "find_fa_compile", lambda: FAKE)
    monkeypatch.setattr(compiler.subprocess, "run", run)
    return calls
