# fa-cpu-pipeline{openmp=true}: the tiled nests' scf.forall run on OpenMP
# threads. The shared library is linked with an OpenMP runtime (LLVM's
# libomp or its libiomp5 alias); without one on the machine the test says so
# and checks nothing.
# RUN: %python %s | FileCheck %s
# CHECK: 0 failed
import glob
import os

os.environ.setdefault("OMP_NUM_THREADS", "2")

from fa_mlir.config import AttentionConfig  # noqa: E402
from fa_mlir import testing  # noqa: E402
import fa_mlir.cpu as cpu  # noqa: E402

candidates = (glob.glob("/usr/lib/llvm-*/lib/libomp.so") +
              glob.glob("/usr/lib/x86_64-linux-gnu/libomp.so") +
              glob.glob("/usr/lib/x86_64-linux-gnu/libiomp5.so"))
failed = 0
if not candidates:
    print("skipped: no OpenMP runtime (install libomp-22-dev)")
else:
    runtime = candidates[0]
    flags = ("-O2", f"-L{os.path.dirname(runtime)}",
             f"-l:{os.path.basename(runtime)}",
             f"-Wl,-rpath,{os.path.dirname(runtime)}")
    original = cpu.compile_to_shared_library

    def with_runtime(text, pipeline="fa-cpu-pipeline", opt_flags=flags):
        return original(text, pipeline, flags)

    cpu.compile_to_shared_library = with_runtime
    testing.compile_to_shared_library = with_runtime
    PIPELINE = "fa-cpu-pipeline{openmp=true}"
    for name, cfg in (
            ("forward causal gqa", AttentionConfig(
                batch=2, heads_q=4, heads_kv=2, seq_q=200, seq_k=200,
                head_dim=32, dtype="bf16", causal=True)),
            ("forward window bias", AttentionConfig(
                batch=1, heads_q=2, heads_kv=2, seq_q=150, seq_k=170,
                head_dim=32, dtype="f16", window=(50, 10), bias=(False, True)))):
        r = testing.check_forward(cfg, seed=1, pipeline=PIPELINE)
        failed += not r["ok"]
        print(f"{'ok' if r['ok'] else 'FAIL'} {name}: err {r['err']:.3g} "
              f"baseline {r['baseline']:.3g}")
    cfg = AttentionConfig(batch=2, heads_q=4, heads_kv=1, seq_q=130,
                          seq_k=150, head_dim=16, dtype="bf16", causal=True,
                          mask_alignment="bottom_right", bias=(False, False))
    r = testing.check_backward(cfg, seed=2, pipeline=PIPELINE)
    failed += not r["ok"]
    print(f"{'ok' if r['ok'] else 'FAIL'} backward causal-br mqa bias: " +
          " ".join(f"{k} {v[0]:.3g}/{v[1]:.3g}" for k, v in r.items()
                   if k != "ok"))
print(f"{failed} failed")
