"""Switching an archive's embedder: refused by ingest, done whole by `reembed`, then searched
by the new embedder only. On the small real archive, with the real models."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from runs_helpers import QUESTION

from evidence_desk.cli import main
from evidence_desk.desk import Desk
from evidence_desk.desk.embedding import Estimate
from evidence_desk.errors import DeskError
from evidence_desk.retrieval import onnxbuild
from evidence_desk.retrieval.embedders import recorded
from evidence_desk.settings import Settings
from evidence_desk.testing.archives import SMALL_ARCHIVE

pytestmark = pytest.mark.torch


def test_another_embedder_is_refused_until_the_archive_is_reembedded(
    fresh_home, embedding_cache, small_archive_file
) -> None:  # type: ignore[no-untyped-def]
    first = Desk(Settings(home=fresh_home, cache_dir=embedding_cache, embed_workers=1))
    rec = recorded(first.store)
    assert rec is not None and rec.name == "onnx-int8"  # a new archive's default
    assert first.embedder.name == "onnx-int8" and first.judge_embedder.name == "onnx-fp32"
    before = first.store.export_index_rows().vectors.copy()
    generation = first.store.generation()

    desk = Desk(
        Settings(home=fresh_home, cache_dir=embedding_cache, embed_workers=1, embedder="torch")
    )
    assert desk.embedder.name == "onnx-int8"  # queries keep to the archive's vectors
    assert "run `evidence-desk reembed`" in desk.status()["embedder"]
    with pytest.raises(DeskError, match=r"never mixed.*reembed"):
        desk.ingest([small_archive_file])
    assert desk.store.generation() == generation  # nothing was written

    seen: list[tuple[int, int]] = []
    summary = desk.reembed(lambda n, total: seen.append((n, total)))
    assert summary.passages == desk.store.count_passages() and summary.after == "torch"
    assert summary.before == "onnx-int8"
    assert seen[-1][0] == seen[-1][1]
    rec = recorded(desk.store)
    assert rec is not None and rec.name == "torch"
    after = desk.store.export_index_rows().vectors
    assert not np.allclose(before, after) and float(np.min(np.sum(before * after, axis=1))) > 0.9
    assert desk.store.generation() == generation + 1
    assert desk.embedder.name == "torch" and desk.judge_embedder is desk.embedder
    receipt = desk.run(QUESTION)
    assert receipt.decision.value == "AUTO_CLEARED"  # published from the new vectors
    assert receipt.sources  # the re-embedded archive is searched
    # An ingest with the new embedder is now accepted: nothing left to embed.
    again = desk.ingest([small_archive_file])
    assert again.unchanged == len(SMALL_ARCHIVE) and again.passages_embedded == 0


def test_reembed_from_the_command_line(fresh_home, embedding_cache) -> None:  # type: ignore[no-untyped-def]
    env = {
        "EVIDENCE_DESK_CACHE_DIR": str(embedding_cache),
        "EVIDENCE_DESK_EMBED_WORKERS": "1",
        "EVIDENCE_DESK_EMBEDDER": "onnx-fp32",
    }
    res = CliRunner().invoke(main, ["--data-dir", str(fresh_home), "reembed", "--yes"], env=env)
    assert res.exit_code == 0, res.output
    assert "Re-embedded" in res.output and "onnx-int8 -> onnx-fp32" in res.output
    res = CliRunner().invoke(main, ["--data-dir", str(fresh_home), "status"], env=env)
    assert "on onnx-fp32 (recipe minilm-l6-v2-onnx-r1)" in res.output


def _ingest(home: Path, cache: Path, *args: str, embedder: str = "auto") -> tuple[int, str]:
    env = {
        "EVIDENCE_DESK_CACHE_DIR": str(cache),
        "EVIDENCE_DESK_EMBED_WORKERS": "1",
        "EVIDENCE_DESK_EMBEDDER": embedder,
    }
    res = CliRunner().invoke(main, ["--data-dir", str(home), "ingest", *args], env=env)
    return res.exit_code, res.stderr


def test_the_one_time_model_build_is_announced_once(
    tmp_path, embedding_cache, small_archive_file
) -> None:  # type: ignore[no-untyped-def]
    cache = tmp_path / "cache"
    shutil.copytree(embedding_cache, cache)  # vectors cached: only the model file is missing
    int8 = onnxbuild.models_dir(cache) / "int8.onnx"
    int8.unlink()
    code, said = _ingest(tmp_path / "home", cache, str(small_archive_file))
    assert code == 0, said
    assert said.count("Preparing all-MiniLM-L6-v2 on onnx-int8") == 1
    assert "once: the shipped weights are exported to ONNX and quantised to int8" in said
    assert onnxbuild.is_built(cache, "int8")
    code, said = _ingest(tmp_path / "home", cache, str(small_archive_file))
    assert code == 0 and "Preparing" not in said


def test_an_ingest_that_would_be_refused_builds_nothing(
    fresh_home, tmp_path, small_archive_file
) -> None:  # type: ignore[no-untyped-def]
    empty = tmp_path / "empty-cache"
    code, said = _ingest(fresh_home, empty, str(small_archive_file), embedder="onnx-fp32")
    assert code != 0 and "never mixed" in said and "Preparing" not in said
    assert not onnxbuild.models_dir(empty).exists()


def test_an_estimate_reads_as_one_sentence() -> None:
    e = Estimate(14_605, 420.0, 34.8, "all-MiniLM-L6-v2 on onnx-int8", "a 48-passage probe")
    assert e.sentence() == (
        "Embedding 14,605 passages with all-MiniLM-L6-v2 on onnx-int8: about 7 minutes "
        "(~35 passages/s, a 48-passage probe)."
    )
    assert "about 30 s" in Estimate(3000, 30.0, 100.0, "x", "y").sentence()
    sampled = Estimate(
        9_454, 270.0, 35.0, "m", "the rate of the last ingest", "from 64 of 2,084 files"
    )
    assert sampled.sentence().startswith(
        "Embedding about 9,500 passages (from 64 of 2,084 files) with m: about 4 minutes"
    )
