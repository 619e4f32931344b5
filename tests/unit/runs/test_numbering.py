"""Sources renumbered in reading order: cited first, as first cited; markers follow."""

from __future__ import annotations

from evidence_desk.runs.numbering import in_reading_order, reading_order, renumbered
from evidence_desk.types import CitedSpan, Draft, SentenceRest, Source


def _sources(n: int) -> list[Source]:
    return [
        Source(
            id=f"S{i}",
            doc_id=f"doc-{i}",
            title=f"Doc {i}",
            retrieved_at="2026-01-01T00:00:00Z",
            content_sha256=f"{i:064d}",
        )
        for i in range(1, n + 1)
    ]


def test_cited_sources_come_first_in_the_order_first_cited() -> None:
    draft = 'K: "a" [S1]. K: "b" [S3].\n\nR: "c" [S2, S4]. R: "d" [S3].'
    assert reading_order(draft, _sources(5)) == {
        "S1": "S1",
        "S3": "S2",
        "S2": "S3",
        "S4": "S4",
        "S5": "S5",
    }
    text, sources = renumbered(draft, _sources(5))
    assert text == 'K: "a" [S1]. K: "b" [S2].\n\nR: "c" [S3, S4]. R: "d" [S2].'
    assert [(s.id, s.doc_id) for s in sources] == [
        ("S1", "doc-1"),
        ("S2", "doc-3"),
        ("S3", "doc-2"),
        ("S4", "doc-4"),
        ("S5", "doc-5"),
    ]


def test_uncited_sources_keep_their_order_after_the_cited_ones() -> None:
    text, sources = renumbered('X: "a" [S3].', _sources(3))
    assert text == 'X: "a" [S1].'
    assert [s.doc_id for s in sources] == ["doc-3", "doc-1", "doc-2"]


def test_only_markers_change_and_unknown_ids_stay_unknown() -> None:
    draft = 'In S3, "see S3" [S3] and [S9]; [S2; S3].'
    text, sources = renumbered(draft, _sources(3))
    assert text == 'In S3, "see S3" [S1] and [S9]; [S2; S1].'
    assert {s.id for s in sources} == {"S1", "S2", "S3"}


def test_a_draft_already_in_reading_order_is_unchanged() -> None:
    sources = _sources(2)
    draft = 'X: "a" [S1]. Y: "b" [S2].'
    assert renumbered(draft, sources) == (draft, tuple(sources))
    assert renumbered("", sources) == ("", tuple(sources))


def test_the_answerers_spans_move_with_their_sources() -> None:
    rest = SentenceRest(
        text="Taxes fell [S3].", spans=(CitedSpan(source_id="S3", text="taxes were cut"),)
    )
    draft = Draft(text="Taxes fell [S3]. Rates rose [S1].", rests=(rest,))
    moved, sources = in_reading_order(draft, _sources(3))
    assert moved.text == "Taxes fell [S1]. Rates rose [S2]."
    (kept,) = moved.rests
    assert kept.text == "Taxes fell [S1]." and kept.spans[0].source_id == "S1"
    assert sources[0].doc_id == "doc-3"
