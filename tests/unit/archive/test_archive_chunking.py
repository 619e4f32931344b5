"""Chunking: exact windows of the stored text, full coverage, page-bound, size-bound."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evidence_desk.archive.chunking import chunk
from evidence_desk.types import Document, PageSpan, Passage


def make_doc(text: str, pages: tuple[PageSpan, ...] = (), doc_id: str = "doc") -> Document:
    return Document(
        doc_id=doc_id,
        title="t",
        content_sha256="0" * 64,
        ingested_at="2024-01-01T00:00:00Z",
        text=text,
        pages=pages,
    )


def words(text: str) -> int:
    return len(text.split())


def check_invariants(doc: Document, passages: list[Passage], max_words: int) -> None:
    text = doc.text
    covered = [0] * len(text)
    for ordinal, p in enumerate(passages):
        assert p.id == f"{doc.doc_id}#{ordinal}" and p.doc_id == doc.doc_id
        assert p.text == text[p.start : p.end]
        assert p.text and p.text == p.text.strip()
        assert words(p.text) <= max_words
        for i in range(p.start, p.end):
            covered[i] += 1
    assert all(a.end <= b.start for a, b in itertools.pairwise(passages))
    for i, ch in enumerate(text):
        if not ch.isspace():
            assert covered[i] == 1, f"character {i} ({ch!r}) is in {covered[i]} passages"
    for page in doc.pages:
        for p in passages:
            inside = page.start <= p.start and p.end <= page.end
            apart = p.end <= page.start or p.start >= page.end
            assert inside or apart, f"{p.id} crosses page {page.label}"


WORD = st.text(alphabet="abcdefgXYZ0129'’-", min_size=1, max_size=8)
SEP = st.sampled_from([" ", " ", " ", "  ", "\n", "\n\n", "\t", "\u00a0", "\u2003", " \n "])
PUNCT = st.sampled_from(["", "", ".", ". ", "!", "?", '."', ".”", ".)", "...", ","])


@st.composite
def prose(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(WORD, PUNCT, SEP), max_size=120))
    lead = draw(st.sampled_from(["", " ", "\n\n", '"']))
    return lead + "".join(w + p + s for w, p, s in parts)


ANY_TEXT = st.one_of(prose(), st.text(max_size=300))


@st.composite
def paged_doc(draw: st.DrawFn) -> Document:
    text = draw(ANY_TEXT)
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=5))))
    bounds = [0, *cuts, len(text)]
    pages = tuple(
        PageSpan(label=str(i + 1), start=a, end=b)
        for i, (a, b) in enumerate(itertools.pairwise(bounds))
    )
    return make_doc(text, pages)


SIZES = st.tuples(st.integers(1, 30), st.integers(0, 30)).map(lambda t: (t[0], t[0] + t[1]))


@settings(max_examples=300, deadline=None)
@given(text=ANY_TEXT, sizes=SIZES)
def test_passages_are_exact_disjoint_and_cover_every_character(
    text: str, sizes: tuple[int, int]
) -> None:
    doc = make_doc(text)
    target, max_words = sizes
    passages = chunk(doc, target, max_words)
    check_invariants(doc, passages, max_words)
    assert chunk(doc, target, max_words) == passages  # deterministic


@settings(max_examples=200, deadline=None)
@given(doc=paged_doc(), sizes=SIZES)
def test_passages_never_cross_a_page_boundary(doc: Document, sizes: tuple[int, int]) -> None:
    passages = chunk(doc, *sizes)
    check_invariants(doc, passages, sizes[1])


def test_passage_closes_once_it_reaches_the_target() -> None:
    text = " ".join(f"Sentence number {i} has six words." for i in range(10))
    passages = chunk(make_doc(text), target_words=13, max_words=40)
    assert [words(p.text) for p in passages] == [18, 18, 18, 6]
    assert passages[0].text.endswith("number 2 has six words.")


def test_next_sentence_that_would_overflow_starts_a_new_passage() -> None:
    text = "One two three four five. " + " ".join(["Word"] * 8) + "."
    passages = chunk(make_doc(text), target_words=10, max_words=10)
    assert [words(p.text) for p in passages] == [5, 8]


def test_a_sentence_longer_than_max_words_is_split_at_white_space() -> None:
    text = " ".join(f"w{i}" for i in range(50)) + "."
    passages = chunk(make_doc(text), target_words=5, max_words=20)
    assert [words(p.text) for p in passages] == [20, 20, 10]
    assert passages[1].text.startswith("w20 ") and passages[2].text.endswith("w49.")


def test_closing_quotes_stay_with_their_sentence() -> None:
    text = 'He said "We shall go." Then the crowd left. (It was late.) Done.'
    passages = chunk(make_doc(text), target_words=1, max_words=10)
    assert [p.text for p in passages] == [
        'He said "We shall go."',
        "Then the crowd left.",
        "(It was late.)",
        "Done.",
    ]


def test_pdf_pages_split_passages() -> None:
    page_one, page_two = "First page ends mid", "sentence on the second page."
    text = page_one + "\n\n" + page_two
    pages = (
        PageSpan(label="i", start=0, end=len(page_one)),
        PageSpan(label="1", start=len(page_one) + 2, end=len(text)),
    )
    passages = chunk(make_doc(text, pages), target_words=100, max_words=200)
    assert [p.text for p in passages] == [page_one, page_two]


def test_offsets_are_code_points_for_non_ascii_text() -> None:
    text = "Ça coûte 5 €. Naïve café — “quoted”. 日本語の文です。 End."
    for p in chunk(make_doc(text), target_words=2, max_words=3):
        assert text[p.start : p.end] == p.text


def test_white_space_only_text_has_no_passages() -> None:
    assert chunk(make_doc(" \n\t "), 10, 20) == []


@pytest.mark.parametrize(("target", "max_words"), [(0, 10), (20, 10)])
def test_invalid_sizes_are_refused(target: int, max_words: int) -> None:
    with pytest.raises(ValueError, match="1 <= target_words <= max_words"):
        chunk(make_doc("Some text."), target, max_words)


def test_sample_sized_document_respects_settings() -> None:
    text = " ".join(f"This is sentence {i} of a long speech about the economy." for i in range(400))
    passages = chunk(make_doc(text), target_words=120, max_words=220)
    counts = [words(p.text) for p in passages]
    assert all(120 <= c <= 220 for c in counts[:-1])
    assert re.fullmatch(r"doc#\d+", passages[-1].id)
