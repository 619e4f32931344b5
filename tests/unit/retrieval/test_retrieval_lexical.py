"""The BM25 index on its own: query sanitising, OR semantics, title weight, scores unfiltered."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_desk.retrieval.days import day_numbers
from evidence_desk.retrieval.lexical import LexicalIndex, sanitize_query
from evidence_desk.textutil import stem


@pytest.fixture
def lexical(tmp_path: Path) -> LexicalIndex:
    texts = [
        "The economy grew and banks failed.",
        "War in Europe ended.",
        "Tariffs on steel and the economy.",
        "Nothing relevant here at all.",
    ]
    titles = ["Economy", "", "Trade", "Banks"]
    return LexicalIndex.build(
        tmp_path / "lex",
        texts,
        titles,
        day_numbers(["1930-05-01", "1945-05-08", None, "1931-01-01"]),
    )


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("foo:bar", "foo bar"),
        ("x^2 - y", "x 2 y"),
        ("banks AND war", "banks war"),
        ('"a b" "c', '"a b" c'),
        ("*", ""),
        ("nation's", "nation s"),
        ('What did Lincoln say about "a house divided"?', 'Lincoln say about "a house divided"'),
        ("to be or not to be", "to be or not to be"),
    ],
)
def test_sanitize_removes_query_syntax_and_stop_words(raw: str, clean: str) -> None:
    assert " ".join(sanitize_query(raw).split()) == clean


def test_terms_are_or_ed_and_stemmed(lexical: LexicalIndex) -> None:
    rows = [r for r, _ in lexical.search("economies war", 10)]
    assert set(rows) == {0, 1, 2}


def test_title_counts_with_lower_weight(lexical: LexicalIndex) -> None:
    hits = lexical.search("banks", 10)
    assert [r for r, _ in hits] == [0, 3]  # text match outranks a title-only match


def test_window_filter_does_not_change_scores(lexical: LexicalIndex) -> None:
    free = dict(lexical.search("economy", 10))
    filtered = lexical.search("economy", 10, ranges=[(-20000, 0)])
    assert [r for r, _ in filtered] == [0]
    assert filtered[0][1] == pytest.approx(free[0])


def test_doc_freq_uses_the_same_stemmer_as_textutil(lexical: LexicalIndex) -> None:
    assert lexical.doc_freq(stem("economies")) == 2
    assert lexical.num_docs == 4


def test_open_rejects_a_directory_without_an_index(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="No search index"):
        LexicalIndex.open(tmp_path)


def test_phrase_freq_counts_terms_in_order(lexical: LexicalIndex) -> None:
    assert lexical.phrase_freq(["bank", "fail"]) == 1
    assert lexical.phrase_freq(["fail", "bank"]) == 0  # order counts
    assert lexical.phrase_freq(["economi", "bank"]) == 0
    assert lexical.phrase_freq(["economi", "bank"], slop=2) == 1  # "economy grew and banks"
    assert lexical.phrase_freq(["economi"]) == lexical.doc_freq("economi") == 2
    assert lexical.phrase_freq([]) == 0
