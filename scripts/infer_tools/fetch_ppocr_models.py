"""Fetch the PP-OCR ONNX models used as real-world test inputs for infer-opt.

The models come from the ``rapidocr-onnxruntime`` wheel on PyPI, which ships
three PaddleOCR models already converted to ONNX:

  * the PP-OCRv4 text detector   (DBNet, ``*det*.onnx``)  -> ``det.onnx``
  * the PP-OCRv4 text recognizer (SVTR/CRNN, ``*rec*.onnx``) -> ``rec.onnx``
  * the mobile v2.0 direction classifier (``*cls*.onnx``) -> ``cls.onnx``

The wheel is fetched with ``pip download --no-deps`` (using the interpreter
running this script, so a virtual environment's pip and index settings
apply), opened as a zip archive, and the three ``.onnx`` members are copied
to the output directory under their short names.  Nothing is installed.

The script is idempotent: when all three files are already present it does
nothing unless ``--force`` is given.

Example:
  python scripts/fetch_ppocr_models.py --out models/ppocr
"""

import argparse
import hashlib
import pathlib
import shutil
import subprocess
import sys
import tempfile
import zipfile

from . import REPO

DEFAULT_OUT = REPO / "models" / "ppocr"

PACKAGE = "rapidocr-onnxruntime"
VERSION = "1.4.4"

# Short output name -> substring identifying the model inside the wheel.
MODEL_KEYS = {
    "det.onnx": "_det_",
    "rec.onnx": "_rec_",
    "cls.onnx": "_cls_",
}


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out",
        type=pathlib.Path,
        default=DEFAULT_OUT,
        help="output directory (default: %(default)s)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="download and overwrite even if all models are present",
    )
    return parser.parse_args(argv)


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download_wheel(dest_dir, package=PACKAGE, version=VERSION):
    """Download a pinned wheel (by default rapidocr's) into dest_dir and
    return its path."""
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        "--dest",
        str(dest_dir),
        f"{package}=={version}",
    ]
    print("running:", " ".join(cmd))
    subprocess.run(cmd, check=True)
    wheels = sorted(pathlib.Path(dest_dir).glob("*.whl"))
    if len(wheels) != 1:
        raise RuntimeError(f"expected exactly one wheel in {dest_dir}, got {wheels}")
    return wheels[0]


def select_members(names):
    """Map each output name to the unique wheel member that matches it."""
    onnx_names = [n for n in names if n.endswith(".onnx")]
    print("ONNX files in wheel:")
    for name in onnx_names:
        print("  ", name)
    selected = {}
    for out_name, key in MODEL_KEYS.items():
        matches = [n for n in onnx_names if key in pathlib.PurePosixPath(n).name]
        if len(matches) != 1:
            raise RuntimeError(
                f"expected one wheel member matching {key!r}, got {matches}"
            )
        selected[out_name] = matches[0]
    return selected


def extract_models(wheel, out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as archive:
        members = select_members(archive.namelist())
        for out_name, member in members.items():
            target = out_dir / out_name
            # Write to a temporary name first so an interrupted copy never
            # leaves a truncated model that a later run would skip.
            partial = target.with_suffix(".onnx.part")
            with archive.open(member) as src, open(partial, "wb") as dst:
                shutil.copyfileobj(src, dst)
            partial.replace(target)
            print(
                f"wrote {target} ({target.stat().st_size} bytes, "
                f"sha256 {sha256_of(target)[:16]}) from {member}"
            )


def main(argv=None):
    args = parse_args(argv)
    out_dir = args.out.resolve()
    targets = [out_dir / name for name in MODEL_KEYS]
    if not args.force and all(t.is_file() for t in targets):
        print(f"all PP-OCR models already present in {out_dir}; nothing to do")
        for target in targets:
            print(f"  {target.name}: {target.stat().st_size} bytes")
        return 0
    with tempfile.TemporaryDirectory(prefix="ppocr-wheel-") as tmp:
        wheel = download_wheel(tmp)
        print(f"downloaded {wheel.name} ({wheel.stat().st_size} bytes)")
        extract_models(wheel, out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
