"""infer-opt's Python tools, as one package.

The commands stay under scripts/ (``scripts/cuda_plan_exec.py`` and the
others are thin wrappers around ``main`` here); a script run from scripts/
has that folder on its path, and the tests get it from pytest.ini's
``pythonpath``, so ``import infer_tools`` needs no path edits.

  engine_format       the engine file's container: the one reader and writer
                      (docs/engine-format.md, include/inferrt/engine_format.h)
  runtime             the build's infer-opt and libinferrt (ctypes): CompiledModel
  cuda_plan_exec      a CUDA engine's plan run by CuPy, or on the CPU by gpu_emulator
  gpu_emulator/       the CUDA kernels' MLIR run on the CPU, with bounds, race
                      and memory-traffic checks
  engine_weights      strip, randomize, split off and restore an engine's weights
  gpu_models          the real models compiled for the GPU check
  fuzz_models         random models through both back ends (fuzz_families: their
                      generators)
  fetch_ppocr_models, fetch_rapid_models   the real models, from PyPI wheels
"""

from pathlib import Path

#: The repository's root (scripts/infer_tools/ is two levels down).
REPO = Path(__file__).resolve().parents[2]
