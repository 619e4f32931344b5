"""Verbatim matching: the white-space rule and nothing else."""

from __future__ import annotations

import re

import pytest

from evidence_desk.trust.text import (
    StoredText,
    collapse_white_space,
    find_verbatim,
    matches_at,
    stored_text,
)

TEXT = "We hold these truths\n to be  self-evident, that all men\u00a0are created equal."


def test_exact_quote_found_at_original_offsets() -> None:
    span = find_verbatim("self-evident", TEXT)
    assert span is not None
    assert TEXT[span[0] : span[1]] == "self-evident"


def test_white_space_runs_match_any_white_space() -> None:
    span = find_verbatim("truths to be self-evident", TEXT)
    assert span is not None
    assert TEXT[span[0] : span[1]] == "truths\n to be  self-evident"


def test_nbsp_is_white_space() -> None:
    span = find_verbatim("all men are created", TEXT)
    assert span is not None
    assert TEXT[span[0] : span[1]] == "all men\u00a0are created"


def test_quote_ends_are_trimmed() -> None:
    span = find_verbatim("  \n these truths\t", TEXT)
    assert span is not None
    assert TEXT[span[0] : span[1]] == "these truths"


@pytest.mark.parametrize(
    "quote",
    [
        "we Hold these truths",  # case, but for the first letter
        "We hold These truths",
        "self—evident",  # dash
        "all men are created equal!",  # punctuation
        "truthsto be",  # white space cannot be removed
        "self-evi dent",  # nor added
        "these tr\u200buths",  # zero-width space is not white space
        "these tr\u200duths",  # zero-width joiner
        "these\ufefftruths",  # BOM
        "these truths\u200b",  # not trimmed either
        "sеlf-evident",  # Cyrillic е
    ],
)
def test_nothing_else_is_folded(quote: str) -> None:
    assert find_verbatim(quote, TEXT) is None


def test_the_first_letter_s_case_is_the_writer_s() -> None:
    assert find_verbatim("we hold these truths", TEXT) == (0, 20)
    assert find_verbatim("Self-evident", TEXT) is not None
    assert find_verbatim("To be self-evident.", TEXT) is not None  # American style too
    assert matches_at("we hold these truths", TEXT, 0, 20)
    assert not matches_at("we Hold these truths", TEXT, 0, 20)
    assert find_verbatim("1 truths", "1 truths") == (0, 8)  # no letter to turn


def test_a_quote_inside_the_quote_may_use_single_marks() -> None:
    text = 'As Jefferson said, “leaving Fear astern.” They call it "the American Miracle."'
    assert find_verbatim("As Jefferson said, 'leaving Fear astern.'", text) == (0, 41)
    assert find_verbatim("As Jefferson said, ‘leaving Fear astern.’", text) == (0, 41)
    assert find_verbatim("They call it 'the American Miracle.'", text) is not None
    assert find_verbatim("They call it ‘the American Miracle.’", text) is not None
    # an apostrophe in a word is never a mark
    assert find_verbatim("the nation's hope", "the nation”s hope") is None


def test_apostrophes_are_not_folded() -> None:
    text = "the nation's hope"
    assert find_verbatim("nation's", text) == (4, 12)
    assert find_verbatim("nation’s", text) is None


def test_unicode_normal_forms_are_not_folded() -> None:
    assert find_verbatim("cafe\u0301", "the café") is None
    assert find_verbatim("café", "the café") == (4, 8)


@pytest.mark.parametrize("quote", ["", "   ", "\n\t\u00a0"])
def test_empty_quote_is_never_verbatim(quote: str) -> None:
    assert find_verbatim(quote, TEXT) is None


def test_white_space_set_is_re_unicode_s() -> None:
    for ch in ["\u00a0", "\u2003", "\u3000", "\x1c", "\u2028"]:
        assert collapse_white_space(f"a{ch}b") == "a b"
    for ch in ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]:
        assert collapse_white_space(f"a{ch}b") == f"a{ch}b"
        assert not re.fullmatch(r"\s", ch)


def test_text_with_leading_and_trailing_white_space() -> None:
    text = "  \n alpha   beta \n"
    prepared = StoredText(text)
    assert prepared.collapsed == " alpha beta "
    assert prepared.find("alpha beta") == (4, 16)
    assert prepared.find("beta") == (12, 16)


def test_text_without_white_space_and_empty_text() -> None:
    assert find_verbatim("bc", "abcd") == (1, 3)
    assert StoredText("").find("a") is None
    assert StoredText("   ").find("a") is None


def test_first_occurrence_wins() -> None:
    assert find_verbatim("to", "to be or not to be") == (0, 2)


def test_stored_text_is_cached_and_prepared_text_accepted() -> None:
    prepared = stored_text(TEXT)
    assert stored_text(TEXT) is prepared
    assert find_verbatim("created equal", prepared) == find_verbatim("created equal", TEXT)


def test_long_document_offsets_map_back() -> None:
    words = [f"w{i}" for i in range(20000)]
    text = "".join(w + (" \n\t"[i % 3] * (1 + i % 4)) for i, w in enumerate(words))
    span = find_verbatim("w19997 w19998 w19999", text)
    assert span is not None
    assert collapse_white_space(text[span[0] : span[1]]) == "w19997 w19998 w19999"
    assert text[span[0]] == "w" and text[span[1] - 1] == "9"


def test_matches_at() -> None:
    assert matches_at("truths to be", TEXT, 14, 27)
    assert matches_at("truths to be", TEXT, 14, 28)  # surrounding white space is ignored
    assert not matches_at("truths to be", TEXT, 14, 26)
    assert not matches_at("truths", TEXT, None, 20)
    assert not matches_at("truths", TEXT, 14, None)
    assert not matches_at("truths", TEXT, 20, 14)
    assert not matches_at("truths", TEXT, 14, 10_000)
    assert not matches_at("truths", TEXT, -1, 5)
    assert not matches_at("", TEXT, 0, 0)
