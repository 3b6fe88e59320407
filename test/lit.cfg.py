# -*- Python -*-
# lit configuration of infer-opt's IR and importer tests.
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "INFER_OPT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".onnxtext", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.infer_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%infer_src_root", config.infer_src_root))
# The CUDA toolkit infer-opt finds (CUDA_PATH, else ptxas on PATH, else
# /usr/local/cuda), for tests that wrap its ptxas.
_ptxas = shutil.which("ptxas")
config.substitutions.append(("%cuda_root", os.environ.get("CUDA_PATH") or (
    os.path.dirname(os.path.dirname(_ptxas)) if _ptxas else "/usr/local/cuda")))
config.substitutions.append(("%malformed", os.path.join(config.test_source_root, "Import", "ONNX", "malformed")))

# The sanitizer build's settings (scripts/test.sh --sanitize) reach the tools.
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "ASAN_OPTIONS",
                                     "UBSAN_OPTIONS"])
llvm_config.use_default_substitutions()

tool_dirs = [config.infer_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["infer-opt"], tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
