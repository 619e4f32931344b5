"""The ONNX embedders: built once from the shipped weights, checked, cached, and faithful.

Builds go to one session-wide cache (the export takes ~20 s); the tests that damage or
refuse a build use their own folders.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from evidence_desk.retrieval import onnxbuild
from evidence_desk.retrieval.embedder import MiniLMEmbedder
from evidence_desk.retrieval.onnxbuild import OnnxBuildError, ensure_model, manifest
from evidence_desk.retrieval.onnxembed import OnnxEmbedder

pytestmark = pytest.mark.torch  # the export loads the PyTorch model

TEXTS = [
    "The banks have reopened and deposits are safe.",
    "We will search the archives for usability guidance on federal websites.",
    "x",
    " ".join(["Production of tanks and aircraft doubled on every front."] * 40),  # > 256 tokens
]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("onnx-cache")
    ensure_model(cache, "int8")
    return cache


def test_fp32_reproduces_the_pytorch_vectors(models: Path, embedder: MiniLMEmbedder) -> None:
    reference = MiniLMEmbedder(precision="fp32", threads=1).embed(TEXTS)
    got = OnnxEmbedder(models, "fp32", batch_size=3).embed(TEXTS)
    assert float(np.max(np.abs(got - reference))) < 1e-5
    query = OnnxEmbedder(models, "fp32").embed_query(TEXTS[0])
    assert float(query @ reference[0]) > 0.99999


def test_int8_stays_close_and_keeps_the_nearest_neighbour(models: Path) -> None:
    reference = MiniLMEmbedder(precision="fp32", threads=1).embed(TEXTS)
    got = OnnxEmbedder(models, "int8").embed(TEXTS)
    assert float(np.min(np.sum(got * reference, axis=1))) > 0.95
    # Each text's nearest neighbour among the references is its own reference vector.
    assert (np.argmax(got @ reference.T, axis=1) == np.arange(len(TEXTS))).all()
    norms = np.linalg.norm(got, axis=1)
    assert np.allclose(norms, 1.0, atol=1e-5)


def test_a_build_is_made_once_and_recorded(models: Path, tmp_path: Path) -> None:
    assert onnxbuild.is_built(models, "int8") and onnxbuild.is_built(models, "fp32")
    assert not onnxbuild.is_built(tmp_path, "int8")
    assert OnnxEmbedder(models, "int8").is_built() and not OnnxEmbedder(tmp_path).is_built()
    path = ensure_model(models, "int8")
    before = path.stat().st_mtime_ns
    assert ensure_model(models, "int8") == path and path.stat().st_mtime_ns == before
    data = manifest(models)
    assert data["recipe"] == onnxbuild.RECIPE
    assert set(data["files"]) == {"fp32.onnx", "int8.onnx"}
    assert len(data["weights_sha256"]) == 64


def test_a_damaged_file_is_rebuilt(models: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    shutil.copytree(models, cache)
    path = onnxbuild.models_dir(cache) / "int8.onnx"
    good = manifest(cache)["files"]["int8.onnx"]["sha256"]
    path.write_bytes(b"not a model")
    assert ensure_model(cache, "int8") == path
    assert manifest(cache)["files"]["int8.onnx"]["sha256"] == good  # the same bytes again
    assert OnnxEmbedder(cache, "int8").embed_query("banks").shape == (384,)


def test_a_build_that_does_not_reproduce_the_model_is_discarded(
    models: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    folder = onnxbuild.models_dir(cache)
    folder.mkdir(parents=True)
    shutil.copy(onnxbuild.models_dir(models) / "fp32.onnx", folder / "fp32.onnx")
    (folder / "manifest.json").write_text(
        (onnxbuild.models_dir(models) / "manifest.json").read_text()
    )
    monkeypatch.setattr(onnxbuild, "INT8_MIN_COSINE", 1.01)  # no int8 build can pass
    with pytest.raises(OnnxBuildError, match="does not reproduce the model"):
        ensure_model(cache, "int8")
    assert not (folder / "int8.onnx").exists()
    assert not list(folder.glob(".build-*"))  # no half-made file left behind
    with pytest.raises(OnnxBuildError):  # and never taken for a good one later
        ensure_model(cache, "int8")
