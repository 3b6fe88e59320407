#!/usr/bin/env python3
"""Check the CUDA kernels of every real model without a GPU.

For each real model (the list of scripts/import_real_models.sh):
  1. ``infer-opt MODEL --input-shape ... --target=cuda:sm_80,sm_90
     --emit=engine --dump-kernels DIR``: every kernel is assembled by the
     toolkit's ptxas for both architectures (infer-opt fails otherwise);
  2. ptxas's -v report must show no spill stores or loads;
  3. ``cuobjdump -sass`` of each cubin: no local-memory instruction
     (LDL/STL) in any kernel, every kernel the plan marks
     ``tensor-cores`` (launches.txt) has HMMA instructions (a staged
     kernel's all HMMA.1684 with mma=wmma in its plan, all HMMA.1688 with
     mma=sync: WMMA's products or mma.sync's; for sm_90 each with the
     one-instruction TF32 rounding, F2FP.TF32.F32), and some
     kernel makes 16-byte global accesses (LDG/STG .128: the elementwise
     kernels of VectorAccesses.cpp). Kernels with warp shuffles (SHFL: the
     block reductions) are counted, and so are tensor-core kernels that
     stage tiles in shared memory (cp.async's 16-byte LDGSTS and a
     barrier): there must be some (the default), unless
     --flag=--no-cuda-stage-tiles asks for none, and then there must be none.

cuobjdump and nvdisasm come from CUDA_PATH/bin, PATH, or NVIDIA's wheels in
the venv (scripts/requirements.txt). Prints one line per model ("ok ..." or
"FAIL ...") and exits 1 if any model fails.

Example:
    .venv/bin/python scripts/cuda_kernel_check.py
    .venv/bin/python scripts/cuda_kernel_check.py --models cls,resnet50-opset17
    .venv/bin/python scripts/cuda_kernel_check.py --flag=--no-cuda-stage-tiles
    .venv/bin/python scripts/cuda_kernel_check.py --jobs 2   # two models at a time
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ARCHS = ("sm_80", "sm_90")


def cases(models: Path) -> dict[str, tuple[Path, list[str]]]:
    result = {
        "det": (models / "ppocr/det.onnx", ["x:1x3x640x640"]),
        "rec": (models / "ppocr/rec.onnx", ["x:1x3x48x320"]),
        "cls": (models / "ppocr/cls.onnx", ["x:1x3x48x192"]),
        "layout": (models / "rapid/layout.onnx", ["image:1x3x800x608"]),
        "orientation": (models / "rapid/orientation.onnx", ["x:1x3x224x224"]),
    }
    for opset in (17, 18):
        synthetic = {
            "resnet50": ["input:1x3x224x224"],
            "mobilenetv2": ["input:1x3x224x224"],
            "bert-base": ["input_ids:1x128", "attention_mask:1x128", "token_type_ids:1x128"],
            "vit-b16": ["pixel_values:1x3x224x224"],
            "gpt2": ["input_ids:1x64"],
        }
        for arch, shapes in synthetic.items():
            name = f"{arch}-opset{opset}"
            result[name] = (models / f"synthetic/{name}.onnx", shapes)
    return result


def find_tool(name: str) -> str | None:
    candidates = []
    if os.environ.get("CUDA_PATH"):
        candidates.append(Path(os.environ["CUDA_PATH"]) / "bin" / name)
    on_path = shutil.which(name)
    if on_path:
        candidates.append(Path(on_path))
    candidates.append(Path(sysconfig.get_paths()["purelib"]) / "nvidia" / "cu13" / "bin" / name)
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    return None


def functions(sass: str) -> dict[str, str]:
    """SASS text per kernel, from cuobjdump's 'Function : NAME' sections."""
    parts = re.split(r"^\s*Function : (\S+)\s*$", sass, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def check_model(name: str, path: Path, shapes: list[str], infer_opt: Path, cuobjdump: str,
                env: dict, flags: list[str]) -> str | None:
    with tempfile.TemporaryDirectory() as tmp:
        dump = Path(tmp) / "kernels"
        cmd = [str(infer_opt), str(path), f"--target=cuda:{','.join(ARCHS)}", "--emit=engine",
               "-o", str(Path(tmp) / "m.engine"), "--dump-kernels", str(dump)] + flags
        for s in shapes:
            cmd += ["--input-shape", s]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            return f"infer-opt exit {p.returncode}: {p.stderr.strip()[-500:]}"
        launches = (dump / "launches.txt").read_text().splitlines()
        marked = {line.split()[0] for line in launches if "tensor-cores" in line.split()}
        # How each staged kernel multiplies (its plan's mma): WMMA's 16x16x8
        # products are HMMA.1684 to ptxas, mma.sync's 16x8x8 HMMA.1688.
        mma_of = {line.split()[0]: m.group(1) for line in launches
                  if (m := re.search(r"staged_tiles\([^)]*\bmma=(\w+)", line))}
        hmma = 0
        wide: set[str] = set()
        shuffles: set[str] = set()
        staged: set[str] = set()
        for arch in ARCHS:
            log = (dump / f"ptxas.{arch}.log").read_text()
            spills = [l for l in log.splitlines() if "spill" in l and
                      not re.search(r"\b0 bytes spill stores, 0 bytes spill loads", l)]
            if spills:
                return f"{arch}: ptxas reports spills: {spills[0].strip()}"
            q = subprocess.run([cuobjdump, "-sass", str(dump / f"kernels.{arch}.cubin")],
                               capture_output=True, text=True, env=env)
            if q.returncode != 0:
                return f"cuobjdump failed: {q.stderr.strip()}"
            sass = functions(q.stdout)
            for kernel, text in sass.items():
                if re.search(r"\b(LDL|STL)\b", text):
                    return f"{arch}: {kernel} uses local memory (LDL/STL)"
            for kernel in marked:
                if kernel not in sass:
                    return f"{arch}: {kernel} missing from the cubin"
                if "HMMA" not in sass[kernel]:
                    return f"{arch}: tensor-core kernel {kernel} has no HMMA"
                hmma += sass[kernel].count("HMMA")
                # From sm_90 the operands round to TF32 in one instruction
                # (cvt.rn.tf32.f32: ptxForArchitecture).
                if int(arch[3:]) >= 90 and "F2FP.TF32.F32" not in sass[kernel]:
                    return f"{arch}: tensor-core kernel {kernel} has no F2FP.TF32.F32"
                shape = {"sync": "HMMA.1688", "wmma": "HMMA.1684"}.get(mma_of.get(kernel, ""))
                if shape and re.findall(r"\bHMMA\.\d+", sass[kernel]) != \
                        [shape] * sass[kernel].count("HMMA"):
                    return f"{arch}: {kernel} (mma={mma_of[kernel]}) has HMMA other than {shape}"
                if re.search(r"\bLDGSTS\.E(\.BYPASS)?\.128\b", sass[kernel]) and \
                        "BAR.SYNC" in sass[kernel]:
                    staged.add(kernel)
            wide |= {k for k, text in sass.items() if re.search(r"\b[LS]TG\.E\.128\b", text)}
            shuffles |= {k for k, text in sass.items() if re.search(r"\bSHFL\.BFLY\b", text)}
        if not wide:
            return "no kernel makes 16-byte global accesses (LDG/STG.E.128)"
        if "--no-cuda-stage-tiles" in flags:
            if staged:
                return f"--no-cuda-stage-tiles, but {sorted(staged)[0]} stages tiles"
        elif marked and not staged:
            return "no tensor-core kernel stages tiles (LDGSTS.128, BAR)"
        return (f"ok {name}: {len(sass)} kernels, {len(marked)} on tensor cores ({hmma} HMMA, "
                f"{len(staged)} staging tiles in shared memory), {len(wide)} with 16-byte "
                f"accesses, {len(shuffles)} with warp shuffles")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--infer-opt", type=Path,
                    default=Path(os.environ.get("INFER_OPT", REPO / "build/bin/infer-opt")))
    ap.add_argument("--models-dir", type=Path, default=REPO / "models")
    ap.add_argument("--models", help="comma-separated names (default: all)")
    ap.add_argument("--flag", action="append", default=[], metavar="FLAG",
                    help="one more infer-opt flag, e.g. --flag=--no-cuda-stage-tiles (repeatable)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="models checked at a time (default 1; ptxas runs on one core)")
    args = ap.parse_args()
    cuobjdump = find_tool("cuobjdump")
    nvdisasm = find_tool("nvdisasm")
    if not cuobjdump or not nvdisasm:
        print("FAIL cuobjdump/nvdisasm not found (scripts/setup.sh installs them into .venv)")
        return 1
    env = dict(os.environ, PATH=f"{Path(nvdisasm).parent}:{os.environ.get('PATH', '')}")
    chosen = {name: case for name, case in cases(args.models_dir).items()
              if not args.models or name in args.models.split(",")}
    present = {name: case for name, case in chosen.items() if case[0].exists()}
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        # The largest models first, so that a small one ends the run; the
        # results are printed in the cases' order.
        futures = {name: pool.submit(check_model, name, path, shapes, args.infer_opt, cuobjdump,
                                     env, args.flag)
                   for name, (path, shapes) in sorted(present.items(),
                                                      key=lambda c: -c[1][0].stat().st_size)}
        for name, (path, _) in chosen.items():
            if name not in futures:
                print(f"FAIL {name}: {path} missing (scripts/import_real_models.sh makes it)")
                failed += 1
                continue
            result = futures[name].result()
            if not result.startswith("ok "):
                result = f"FAIL {name}: {result}"
                failed += 1
            print(result, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
