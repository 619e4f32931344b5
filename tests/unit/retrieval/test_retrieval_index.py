"""HybridIndex: build, open, search in every mode, time windows, rebuilds and broken indexes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evidence_desk.retrieval import index as index_module
from evidence_desk.retrieval.embedder import MiniLMEmbedder
from evidence_desk.retrieval.index import CURRENT, HybridIndex, IndexRows
from evidence_desk.types import TimeWindow

THIRTIES = TimeWindow(start="1930-01-01", end="1939-12-31", label="1930s")
SIXTIES = TimeWindow(start="1960", end="1969", label="1960s")
NOUGHTIES = TimeWindow(start="2000-01-01", end="2009-12-31", label="2000s")
HOSTILE = [
    "foo:bar",
    '"unbalanced quote',
    "AND",
    "x^2 - y",
    "",
    "*",
    "-banks",
    "((",
    "title:",
    "day:[0 TO 99999]",
    "pid:3",
    "banks AND OR NOT",
    "\\",
    "moon~2^3",
    '""',
]


def _rows(index: HybridIndex, results: list[index_module.RankedPassage]) -> list[int]:
    return [r.row for r in results]


def test_open_returns_what_build_wrote(tiny_index: HybridIndex, tmp_path: Path) -> None:
    opened = HybridIndex.open(tmp_path / "index")
    assert opened is not None
    assert opened.generation == 1
    assert opened.count == opened.num_docs == 12
    assert opened.meta["model_id"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert opened.meta["dim"] == 384


def test_lexical_mode_ranks_the_matching_passage_first(tiny_index: HybridIndex) -> None:
    results = tiny_index.search("rationing of gasoline", k=3, mode="lexical")
    top = results[0]
    assert (top.row, top.passage_id, top.doc_id) == (3, "1942-Roosevelt-1#1", "1942-Roosevelt-1")
    assert top.doc_date == "1942-01-06"
    assert top.lexical_rank == 1 and top.lexical_score is not None and top.lexical_score > 0
    assert top.dense_rank is None and top.dense_score is None  # no query vector given


def test_dense_mode_finds_a_paraphrase(tiny_index: HybridIndex, embedder: MiniLMEmbedder) -> None:
    q = "sending people to walk on the lunar surface"
    results = tiny_index.search(q, embedder.embed_query(q), k=2, mode="dense")
    assert {r.row for r in results} == {4, 11}
    assert all(r.lexical_rank is None and r.dense_rank is not None for r in results)
    assert results[0].dense_score is not None and results[0].dense_score > 0.3


@pytest.mark.parametrize("fusion", ["rrf", "score"])
def test_hybrid_mode_fuses_both_engines(
    tiny_index: HybridIndex, embedder: MiniLMEmbedder, fusion: str
) -> None:
    q = "banks reopened after the crisis"
    results = tiny_index.search(q, embedder.embed_query(q), k=12, mode="hybrid", fusion=fusion)  # type: ignore[arg-type]
    rows = _rows(tiny_index, results)
    assert rows[0] in (0, 10)
    assert len(rows) == len(set(rows))
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)
    assert any(r.lexical_rank is not None and r.dense_rank is not None for r in results)
    # Exact cosines are reported for every result, BM25-only ones included.
    assert all(r.dense_score is not None for r in results)


def test_windows_exclude_undated_and_out_of_window_rows(
    tiny_index: HybridIndex, embedder: MiniLMEmbedder
) -> None:
    q = "banks"
    vec = embedder.embed_query(q)
    for mode in ("lexical", "dense", "hybrid"):
        results = tiny_index.search(q, vec, k=12, windows=[NOUGHTIES], mode=mode)  # type: ignore[arg-type]
        assert results, mode
        assert all(r.doc_date is not None and r.doc_date.startswith("2009") for r in results)
    both = tiny_index.search(q, vec, k=12, windows=[THIRTIES, NOUGHTIES], mode="dense")
    years = {r.doc_date[:4] for r in both if r.doc_date}
    assert years == {"1934", "2009"} and len(both) == 4
    lexical_both = tiny_index.search(q, k=12, windows=[THIRTIES, NOUGHTIES], mode="lexical")
    assert {r.row for r in lexical_both} == {0, 9}  # not row 10: undated


def test_window_on_partial_years_is_inclusive(
    tiny_index: HybridIndex, embedder: MiniLMEmbedder
) -> None:
    q = "moon landing"
    results = tiny_index.search(q, embedder.embed_query(q), k=12, windows=[SIXTIES])
    assert {r.doc_id for r in results} == {"1962-Kennedy-1", "1965-Johnson-1"}


def test_a_window_with_a_bad_date_is_a_clear_error(tiny_index: HybridIndex) -> None:
    bad = TimeWindow(start="last spring", end="2009-01-01", label="spring")
    with pytest.raises(ValueError, match="not ISO"):
        tiny_index.search("banks", k=3, windows=[bad], mode="lexical")


def test_dense_search_without_a_vector_is_a_clear_error(tiny_index: HybridIndex) -> None:
    with pytest.raises(ValueError, match="need the query's embedding"):
        tiny_index.search("banks", k=3, mode="hybrid")


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_query_text_never_raises(
    tiny_index: HybridIndex, embedder: MiniLMEmbedder, query: str
) -> None:
    vec = embedder.embed_query(query or " ")
    lexical = tiny_index.search(query, k=12, mode="lexical")
    hybrid = tiny_index.search(query, vec, k=5, windows=[THIRTIES])
    # Query syntax never reaches tantivy: no match-all, no field access, no exclusion.
    assert len(lexical) < 12
    assert all(r.doc_date == "1934-01-03" for r in hybrid)


def test_syntax_free_words_still_match(tiny_index: HybridIndex) -> None:
    assert tiny_index.search("foo:banks", k=3, mode="lexical")[0].row in (0, 9, 10)
    phrase = tiny_index.search('"solar panels" energy', k=3, mode="lexical")
    assert phrase[0].row == 8


def test_doc_freq_counts_stemmed_terms(tiny_index: HybridIndex) -> None:
    assert tiny_index.doc_freq("bank") == 3
    assert tiny_index.doc_freq("banks") == 0  # callers pass stemmed terms
    assert tiny_index.doc_freq("zeppelin") == 0


def test_rebuild_replaces_the_previous_generation(tmp_path: Path, tiny_rows: IndexRows) -> None:
    directory = tmp_path / "index"
    first = HybridIndex.build(directory, tiny_rows, generation=1)
    keep = slice(0, 4)
    second_rows = IndexRows(
        passage_ids=list(tiny_rows.passage_ids[keep]),
        doc_ids=list(tiny_rows.doc_ids[keep]),
        texts=list(tiny_rows.texts[keep]),
        titles=list(tiny_rows.titles[keep]),
        dates=list(tiny_rows.dates[keep]),
        vectors=tiny_rows.vectors[keep],
    )
    HybridIndex.build(directory, second_rows, generation=2)
    reopened = HybridIndex.open(directory)
    assert reopened is not None and reopened.generation == 2 and reopened.count == 4
    assert reopened.search("moon", k=5, mode="lexical") == []
    assert not first.path.exists()  # the old generation is gone once the new one is current
    assert sorted(p.name for p in directory.iterdir()) == sorted([CURRENT, reopened.path.name])


def test_a_failed_build_keeps_the_previous_index(
    tmp_path: Path, tiny_rows: IndexRows, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "index"
    HybridIndex.build(directory, tiny_rows, generation=1)

    def disk_full(*_: object) -> None:
        raise OSError("No space left on device")

    monkeypatch.setattr(index_module, "save_matrix", disk_full)
    with pytest.raises(OSError):
        HybridIndex.build(directory, tiny_rows, generation=2)
    reopened = HybridIndex.open(directory)
    assert reopened is not None and reopened.generation == 1
    assert not [p for p in directory.iterdir() if p.name.startswith(".building")]


def test_missing_index_opens_as_none(tmp_path: Path) -> None:
    assert HybridIndex.open(tmp_path / "nowhere") is None
    (tmp_path / "empty").mkdir()
    assert HybridIndex.open(tmp_path / "empty") is None


@pytest.mark.parametrize(
    "damage",
    ["delete_meta", "garbage_meta", "wrong_count", "other_model", "bad_pointer", "short_rows"],
)
def test_damaged_index_opens_as_none(tmp_path: Path, tiny_rows: IndexRows, damage: str) -> None:
    built = HybridIndex.build(tmp_path / "index", tiny_rows, generation=1)
    meta_path = built.path / "meta.json"
    meta = json.loads(meta_path.read_text())
    if damage == "delete_meta":
        meta_path.unlink()
    elif damage == "garbage_meta":
        meta_path.write_text("{not json")
    elif damage == "wrong_count":
        meta_path.write_text(json.dumps({**meta, "count": 13}))
    elif damage == "other_model":
        meta_path.write_text(json.dumps({**meta, "model_id": "another/model"}))
    elif damage == "bad_pointer":
        (tmp_path / "index" / CURRENT).write_text("../../etc")
    elif damage == "short_rows":
        np.save(built.path / "vectors.npy", np.zeros((11, 384), dtype=np.float32))
    assert HybridIndex.open(tmp_path / "index") is None


def test_rows_must_agree(tiny_rows: IndexRows) -> None:
    with pytest.raises(ValueError, match="disagree"):
        IndexRows(
            passage_ids=["a"],
            doc_ids=["a"],
            texts=["t"],
            titles=["t"],
            dates=[None],
            vectors=tiny_rows.vectors,
        )


def test_large_index_search_through_int8_copy_is_unchanged(
    tmp_path: Path,
    tiny_rows: IndexRows,
    embedder: MiniLMEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = HybridIndex.build(tmp_path / "plain", tiny_rows, generation=1)
    monkeypatch.setattr(index_module, "COARSE_MIN_ROWS", 1)
    large = HybridIndex.build(tmp_path / "large", tiny_rows, generation=1)
    assert (large.path / "vectors.i8.npy").exists()
    assert not (plain.path / "vectors.i8.npy").exists()
    q = "astronauts and the moon"
    vec = embedder.embed_query(q)
    for windows in ((), (SIXTIES, NOUGHTIES)):
        got = large.search(q, vec, k=6, mode="dense", windows=windows)
        expected = plain.search(q, vec, k=6, mode="dense", windows=windows)
        assert [r.row for r in got] == [r.row for r in expected]
