"""The tests' name for infer_tools.runtime (scripts/infer_tools/runtime.py):
the build's infer-opt and libinferrt, and CompiledModel."""

from infer_tools.runtime import (INFER_OPT, LIBINFERRT, REPO, CompiledModel, TensorInfo,  # noqa: F401
                                 _check, check_against_onnxruntime, runtime)
