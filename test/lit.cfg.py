# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "FA"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fa_obj_root, "test")
config.excludes = ["Inputs", "lib", "Device", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

fa_tools_dir = os.path.join(config.fa_obj_root, "bin")
fa_libs_dir = os.path.join(config.fa_obj_root, "lib")
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", fa_tools_dir, append_path=True)

# The stock mlir-opt and mlir-runner come from LLVM's tools directory; ours
# from the build tree.
llvm_config.add_tool_substitutions(
    ["fa-opt", "mlir-opt", "mlir-runner", "mlir-translate"],
    [fa_tools_dir, config.llvm_tools_dir])

config.substitutions.append(("%fa_libs", fa_libs_dir))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%mlir_lib_dir", config.llvm_lib_dir))
config.substitutions.append(
    ("%mlir_runner_libs",
     ",".join(os.path.join(config.llvm_lib_dir, lib + config.llvm_shlib_ext)
              for lib in ["libmlir_c_runner_utils", "libmlir_runner_utils"])))
# Ahead of lit's own %python (the interpreter running lit): tests need the
# environment with numpy.
config.substitutions.insert(0, ("%python", config.python_executable))
config.substitutions.append(("%fa_src_root", config.fa_src_root))
# MLIR's .td includes (OpBase.td and the rest), for mlir-tblgen.
config.substitutions.append(
    ("%llvm_include", os.path.join(os.path.dirname(config.llvm_lib_dir), "include")))

# Python helpers shared by the numeric tests, and the fa_mlir package.
llvm_config.with_environment(
    "PYTHONPATH",
    [os.path.join(config.fa_src_root, "test", "lib"),
     os.path.join(config.fa_src_root, "python")],
    append_path=True)
llvm_config.with_environment("FA_BUILD_DIR", config.fa_obj_root)

# CUDA's ptxas (/usr/local/cuda in CI; PTXAS as in test/Device/build_kernels.sh)
# for the tests of what it makes of our PTX: registers, stack and spills
# (REQUIRES: ptxas).
ptxas = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
