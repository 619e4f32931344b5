"""The select stage: documents by best passage, passages without overlap, sides interleaved."""

from __future__ import annotations

from evidence_desk.runs.selection import (
    SelectionBounds,
    choose_documents,
    select_sources,
    spread,
    voices_of,
)
from evidence_desk.types import Document, Hit, Passage


def doc(doc_id: str) -> Document:
    return Document(
        doc_id=doc_id,
        title=doc_id.upper(),
        date="1900-01-01",
        url=None,
        content_sha256="0" * 64,
        ingested_at="2026-01-01T00:00:00Z",
        text="x" * 1000,
    )


def hit(doc_id: str, n: int, score: float, start: int = 0, end: int = 10) -> Hit:
    p = Passage(id=f"{doc_id}#{n}", doc_id=doc_id, text="x" * (end - start), start=start, end=end)
    return Hit(passage=p, score=score)


def test_documents_rank_by_best_passage_and_sides_alternate() -> None:
    side_a = [hit("a1", 0, 0.9), hit("a2", 0, 0.8), hit("a3", 0, 0.7)]
    side_b = [hit("b1", 0, 0.5), hit("b2", 0, 0.4)]
    assert choose_documents([side_a, side_b], 4) == ["a1", "b1", "a2", "b2"]
    assert choose_documents([side_a], 2) == ["a1", "a2"]


def test_sources_are_numbered_with_non_overlapping_passages_in_reading_order() -> None:
    hits = [
        hit("a", 0, 0.9, 100, 200),
        hit("a", 1, 0.8, 150, 250),  # overlaps the first: dropped
        hit("a", 2, 0.7, 0, 50),
        hit("a", 2, 0.6, 0, 50),  # duplicate passage id
        hit("b", 0, 0.5),
    ]
    docs = {"a": doc("a"), "b": doc("b")}
    sources = select_sources([hits], docs, SelectionBounds(5, 3), "2026-01-01T00:00:00Z")
    assert [s.id for s in sources] == ["S1", "S2"]
    assert [p.id for p in sources[0].passages] == ["a#2", "a#0"]
    assert sources[0].title == "A" and sources[1].doc_id == "b"


def test_bounds_limit_sources_and_passages() -> None:
    hits = [
        hit(f"d{i}", j, 1.0 - i / 10 - j / 100, j * 20, j * 20 + 10)
        for i in range(5)
        for j in range(4)
    ]
    docs = {f"d{i}": doc(f"d{i}") for i in range(5)}
    sources = select_sources([hits], docs, SelectionBounds(2, 2), "t")
    assert len(sources) == 2 and all(len(s.passages) == 2 for s in sources)


def test_a_passage_cut_inside_a_list_runs_on_to_the_list_end() -> None:
    text = (
        "Opening words of the message. We have three great aims. The first is peace. "
        "The second is work. The third is freedom. Closing words of the message."
    )
    document = doc("d").model_copy(update={"text": text})
    cut = text.index(" The third")
    p = Passage(id="d#0", doc_id="d", text=text[:cut], start=0, end=cut)
    whole = Passage(id="d#1", doc_id="d", text=text[:20], start=0, end=20)
    (source,) = select_sources(
        [[Hit(passage=p, score=1.0)]], {"d": document}, SelectionBounds(5, 2), "t"
    )
    (passage,) = source.passages
    assert passage.id == "d#0" and passage.text.endswith("The third is freedom.")
    assert passage.text == text[passage.start : passage.end]
    (plain,) = select_sources(
        [[Hit(passage=whole, score=1.0)]], {"d": document}, SelectionBounds(5, 2), "t"
    )
    assert plain.passages[0].end == 20  # no list cut: unchanged


def test_a_many_voices_question_takes_each_speakers_best_document_first() -> None:
    ranked = [hit("o1", 0, 0.9), hit("o2", 0, 0.85), hit("o3", 0, 0.8), hit("b1", 0, 0.5)]
    ranked += [hit("n1", 0, 0.4), hit("o4", 0, 0.3)]
    voices = {"o1": "Obama", "o2": "Obama", "o3": "Obama", "o4": "Obama", "b1": "Bush"}
    assert choose_documents([ranked], 3) == ["o1", "o2", "o3"]
    # `n1` names no one: a voice of its own
    assert choose_documents([ranked], 4, voices) == ["o1", "b1", "n1", "o2"]
    assert spread(["o1", "o2", "b1"], voices) == ["o1", "b1", "o2"]


def test_select_sources_spreads_voices_only_when_asked() -> None:
    docs = {d: doc(d) for d in ("a", "b", "c")}
    docs = {
        d: x.model_copy(update={"meta": {"president": name}})
        for (d, x), name in zip(docs.items(), ("Obama", "Obama", "Bush"), strict=True)
    }
    hits = [hit("a", 0, 0.9), hit("b", 0, 0.8), hit("c", 0, 0.1)]
    bounds = SelectionBounds(2, 1)
    plain = select_sources([hits], docs, bounds, "t")
    many = select_sources([hits], docs, bounds, "t", many=True)
    assert [s.doc_id for s in plain] == ["a", "b"]
    assert [s.doc_id for s in many] == ["a", "c"]
    assert voices_of(docs) == {"a": "Obama", "b": "Obama", "c": "Bush"}
