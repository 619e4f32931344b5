"""The archive's hybrid index: BM25 + dense vectors + dates, built and swapped as one unit.

`HybridIndex` owns one directory. Each build writes a complete generation into a hidden
scratch directory, renames it to `gen-<generation>-<nonce>/`, and only then points the
`CURRENT` file at it (written to a temporary name and `os.replace`d, which is atomic). So:

* a reader opening the directory sees the previous generation or the new one, never a
  half-built one; a crash mid-build leaves the previous generation in service;
* the previous generation is deleted only after `CURRENT` names the new one (open readers
  keep their files: POSIX unlinks do not pull data from under an open mapping);
* `open()` returns None when there is no index or anything in it fails validation
  (missing or corrupt `meta.json`, counts that disagree, another model or dimension), so
  the caller rebuilds instead of serving a broken index.

One writer at a time per directory: the caller serialises builds (`DeskArchive.refresh`
takes a thread lock and an exclusive lock on `<dir>.lock` across processes). A generation holds
`meta.json`, `lexical/` (tantivy), `vectors.npy` (and, for large archives, its int8 copy
`vectors.i8.npy`, see `vectors.py`), `days.npy` and `rows.json` (passage and document
ids, document dates). Row i is the i-th passage given to `build`; the caller's
passage store resolves text from the passage id.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..types import TimeWindow
from .days import day_numbers, window_ranges
from .embedder import DIM, MODEL_ID, Vectors
from .fusion import DEFAULT_RRF_K, Fused, rrf, score_fusion
from .lexical import LexicalIndex
from .vectors import COARSE_MIN_ROWS, VectorStore, save_coarse, save_matrix

FORMAT = 1
CURRENT = "CURRENT"
_GEN_NAME = re.compile(r"^gen-\d+-[0-9a-f]{12}$")
Mode = Literal["hybrid", "lexical", "dense"]
Fusion = Literal["rrf", "score"]


@dataclass(frozen=True)
class IndexRows:
    """What one build indexes: row i of every field describes passage i."""

    passage_ids: Sequence[str]
    doc_ids: Sequence[str]
    texts: Sequence[str]
    titles: Sequence[str]
    dates: Sequence[str | None]
    vectors: Vectors

    def __post_init__(self) -> None:
        n = len(self.passage_ids)
        lengths = {len(self.doc_ids), len(self.texts), len(self.titles), len(self.dates)}
        if lengths != {n} or self.vectors.shape != (n, DIM):
            raise ValueError(
                f"Index rows disagree: {n} passage ids, but fields of lengths {sorted(lengths)} "
                f"and a vector matrix of shape {self.vectors.shape} (expected ({n}, {DIM}))."
            )


@dataclass(frozen=True)
class RankedPassage:
    """One search result. Ranks are 1-based; None means the engine did not list the row.

    `dense_score` is the exact cosine whenever a query vector was given, even for rows
    only BM25 found (so callers can judge every result on one scale).
    """

    row: int
    passage_id: str
    doc_id: str
    score: float
    lexical_score: float | None
    lexical_rank: int | None
    dense_score: float | None
    dense_rank: int | None
    doc_date: str | None


def _write_json(path: Path, obj: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, separators=(",", ":"))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class HybridIndex:
    """An opened generation of the hybrid index (read-only, thread-safe searches)."""

    def __init__(
        self,
        path: Path,
        meta: dict[str, Any],
        lexical: LexicalIndex,
        vectors: VectorStore,
        rows: dict[str, list[Any]],
    ) -> None:
        self.path = path
        self.meta = meta
        self.lexical = lexical
        self.vectors = vectors
        self._passage_ids: list[str] = rows["passage_ids"]
        self._doc_ids: list[str] = rows["doc_ids"]
        self._dates: list[str | None] = rows["dates"]

    # ------------------------------------------------------------------ build and open

    @classmethod
    def build(cls, directory: Path, rows: IndexRows, generation: int) -> HybridIndex:
        """Builds a new generation and makes it current; returns it opened."""
        directory.mkdir(parents=True, exist_ok=True)
        scratch = directory / f".building-{uuid.uuid4().hex[:12]}"
        try:
            cls._write_generation(scratch, rows, generation)
            final = directory / f"gen-{generation:06d}-{uuid.uuid4().hex[:12]}"
            os.rename(scratch, final)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        _fsync_dir(directory)
        pointer = directory / (CURRENT + ".tmp")
        pointer.write_text(final.name + "\n", encoding="utf-8")
        os.replace(pointer, directory / CURRENT)
        _fsync_dir(directory)
        for old in directory.iterdir():
            if old != final and (old.name.startswith("gen-") or old.name.startswith(".building-")):
                shutil.rmtree(old, ignore_errors=True)
        opened = cls.open(directory)
        if opened is None:  # pragma: no cover - only on a disk fault between write and read
            raise RuntimeError(f"The index just built in {directory} could not be read back.")
        return opened

    @staticmethod
    def _write_generation(path: Path, rows: IndexRows, generation: int) -> None:
        path.mkdir()
        days = day_numbers(rows.dates)
        LexicalIndex.build(path / "lexical", rows.texts, rows.titles, days)
        save_matrix(path / "vectors.npy", rows.vectors)
        if len(rows.passage_ids) >= COARSE_MIN_ROWS:
            save_coarse(path / "vectors.i8.npy", rows.vectors)
        np.save(path / "days.npy", days, allow_pickle=False)
        _write_json(
            path / "rows.json",
            {
                "passage_ids": list(rows.passage_ids),
                "doc_ids": list(rows.doc_ids),
                "dates": list(rows.dates),
            },
        )
        # meta.json last: its presence with matching counts marks a complete generation.
        _write_json(
            path / "meta.json",
            {
                "format": FORMAT,
                "generation": generation,
                "count": len(rows.passage_ids),
                "model_id": MODEL_ID,
                "dim": DIM,
                "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            },
        )

    @classmethod
    def open(cls, directory: Path) -> HybridIndex | None:
        """The current generation, or None when there is none or it fails validation."""
        try:
            name = (directory / CURRENT).read_text(encoding="utf-8").strip()
            if not _GEN_NAME.match(name):
                return None
            path = directory / name
            meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
            if not cls._meta_ok(meta):
                return None
            count = meta["count"]
            rows = json.loads((path / "rows.json").read_text(encoding="utf-8"))
            if any(len(rows.get(k, ())) != count for k in ("passage_ids", "doc_ids", "dates")):
                return None
            days = np.load(path / "days.npy", allow_pickle=False)
            vectors = VectorStore.open(
                path / "vectors.npy", days.astype(np.int32, copy=False), path / "vectors.i8.npy"
            )
            lexical = LexicalIndex.open(path / "lexical")
            if vectors.matrix.shape != (count, DIM) or lexical.num_docs != count:
                return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        return cls(path, meta, lexical, vectors, rows)

    @staticmethod
    def _meta_ok(meta: object) -> bool:
        return (
            isinstance(meta, dict)
            and meta.get("format") == FORMAT
            and isinstance(meta.get("generation"), int)
            and isinstance(meta.get("count"), int)
            and meta.get("model_id") == MODEL_ID
            and meta.get("dim") == DIM
        )

    # ------------------------------------------------------------------ facts

    @property
    def generation(self) -> int:
        return int(self.meta["generation"])

    @property
    def count(self) -> int:
        return int(self.meta["count"])

    @property
    def num_docs(self) -> int:
        return self.lexical.num_docs

    def doc_freq(self, term: str) -> int:
        """Passages whose text holds this stemmed term."""
        return self.lexical.doc_freq(term)

    def phrase_freq(self, stems: Sequence[str], slop: int = 0) -> int:
        """Passages whose text holds these stemmed terms in order (`slop` words apart)."""
        return self.lexical.phrase_freq(stems, slop)

    # ------------------------------------------------------------------ search

    def search(
        self,
        query: str,
        query_vec: Vectors | None = None,
        *,
        k: int = 10,
        windows: Sequence[TimeWindow] = (),
        mode: Mode = "hybrid",
        fusion: Fusion = "rrf",
        candidates: int = 40,
        rrf_k: int = DEFAULT_RRF_K,
        lexical_weight: float = 0.5,
        dense_weight: float = 0.5,
    ) -> list[RankedPassage]:
        """The k best passages for the query, within any of `windows` when given."""
        if mode not in ("hybrid", "lexical", "dense"):
            raise ValueError(f"Unknown search mode {mode!r}: use hybrid, lexical or dense.")
        if mode != "lexical" and query_vec is None:
            raise ValueError("Dense and hybrid search need the query's embedding.")
        ranges = window_ranges(windows)
        depth = max(candidates, k)
        lex = self.lexical.search(query, depth, ranges) if mode != "dense" else []
        dense = (
            self.vectors.search(query_vec, depth, ranges)
            if mode != "lexical" and query_vec is not None
            else []
        )
        exact: dict[int, float] = {}
        if query_vec is not None:
            listed = {r for r, _ in dense}
            missing = [r for r, _ in lex if r not in listed]
            exact = dict(
                zip(missing, self.vectors.scores(query_vec, missing).tolist(), strict=True)
            )
            exact.update(dense)
        fused = self._fuse(lex, dense, exact, mode, fusion, rrf_k, lexical_weight, dense_weight)
        return [self._ranked(f, lex, exact) for f in fused[:k]]

    @staticmethod
    def _fuse(
        lex: list[tuple[int, float]],
        dense: list[tuple[int, float]],
        exact: dict[int, float],
        mode: Mode,
        fusion: Fusion,
        rrf_k: int,
        lexical_weight: float,
        dense_weight: float,
    ) -> list[Fused[int]]:
        if fusion == "rrf":
            return rrf([[r for r, _ in lex], [r for r, _ in dense]], k=rrf_k)
        if fusion != "score":
            raise ValueError(f"Unknown fusion {fusion!r}: use rrf or score.")
        if mode == "lexical":
            lexical_weight, dense_weight = 1.0, 0.0
        elif mode == "dense":
            lexical_weight, dense_weight = 0.0, 1.0
        return score_fusion(
            lex, dense, lexical_weight=lexical_weight, dense_weight=dense_weight, dense_known=exact
        )

    def _ranked(
        self, f: Fused[int], lex: list[tuple[int, float]], exact: dict[int, float]
    ) -> RankedPassage:
        row = f.key
        lex_rank, dense_rank = f.ranks
        return RankedPassage(
            row=row,
            passage_id=self._passage_ids[row],
            doc_id=self._doc_ids[row],
            score=f.score,
            lexical_score=lex[lex_rank - 1][1] if lex_rank is not None else None,
            lexical_rank=lex_rank,
            dense_score=exact.get(row),
            dense_rank=dense_rank,
            doc_date=self._dates[row],
        )
