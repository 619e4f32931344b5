"""Splitting drafts into claims: sentences, citations, quotes, markers."""

from __future__ import annotations

import unicodedata

import pytest

from evidence_desk.trust.claims import QUOTE_LIKE, split_claims, strip_markers


def texts(draft: str) -> list[str]:
    return [c.text for c in split_claims(draft)]


def test_one_claim_per_sentence_with_offsets() -> None:
    draft = "  Prices rose [S1]. Wages fell [S2]!  Why? [S1]  "
    claims = split_claims(draft)
    assert [c.text for c in claims] == ["Prices rose [S1].", "Wages fell [S2]!", "Why? [S1]"]
    for c in claims:
        assert draft[c.start : c.end] == c.text
    assert [c.citations for c in claims] == [("S1",), ("S2",), ("S1",)]


def test_markers_after_the_end_mark_belong_to_the_sentence() -> None:
    assert texts("It ended in 1933. [S2] Then it began again. [S1][S3]") == [
        "It ended in 1933. [S2]",
        "Then it began again. [S1][S3]",
    ]


@pytest.mark.parametrize(
    "brk", ["\n", "\r", "\r\n", "\r\r\r", "\n\n", "\x85", "\u2028", "\u2029", "\v", "\f"]
)
def test_every_line_break_a_reader_sees_ends_a_sentence(brk: str) -> None:
    assert texts(f"First part [S1]{brk}still first [S1]") == ["First part [S1]", "still first [S1]"]


def test_list_items_and_headings_are_sentences_without_their_markers() -> None:
    draft = "# The war\n- Congress met [S1]\n* It adjourned [S1]\n2. It met again [S2]\n3) Done"
    assert texts(draft) == [
        "The war",
        "Congress met [S1]",
        "It adjourned [S1]",
        "It met again [S2]",
        "Done",
    ]


def test_cjk_and_full_width_end_marks_split_without_a_space() -> None:
    assert texts("It rained [S1]。It snowed [S2]！Why？Done") == [
        "It rained [S1]。",
        "It snowed [S2]！",
        "Why？",
        "Done",
    ]


def test_lower_case_after_an_end_mark_starts_a_sentence() -> None:
    assert texts("It ended. the war began [S1]. It cost approx. ten dollars [S1].") == [
        "It ended.",
        "the war began [S1].",
        "It cost approx. ten dollars [S1].",
    ]


def test_abbreviations_and_initials_do_not_split() -> None:
    draft = "Mr. Smith met Franklin D. Roosevelt in the U.S. Capitol [S1]. It rained [S2]."
    assert texts(draft) == [
        "Mr. Smith met Franklin D. Roosevelt in the U.S. Capitol [S1].",
        "It rained [S2].",
    ]
    assert texts("Yes: George H.W. Bush said so [S1].") == ["Yes: George H.W. Bush said so [S1]."]


def test_decimal_points_do_not_split() -> None:
    assert texts("Growth was 3.5 percent [S1]. Then 2.1 [S1].") == [
        "Growth was 3.5 percent [S1].",
        "Then 2.1 [S1].",
    ]


def test_end_marks_and_parenthesis_run_together() -> None:
    assert texts("Really?! (Yes.) Indeed [S1].") == ["Really?!", "(Yes.)", "Indeed [S1]."]


def test_never_splits_inside_a_quote() -> None:
    draft = 'He said "We will fight. We will win." [S1] She agreed [S2].'
    claims = split_claims(draft)
    assert [c.text for c in claims] == [
        'He said "We will fight. We will win." [S1]',
        "She agreed [S2].",
    ]
    assert claims[0].quotes == ("We will fight. We will win.",)
    assert claims[0].citations == ("S1",)


def test_quote_ending_a_sentence_before_lower_case_does_not_split() -> None:
    draft = 'He asked "why?" and left [S1]. "Go!" [S2] Then silence [S1].'
    assert texts(draft) == [
        'He asked "why?" and left [S1].',
        '"Go!" [S2]',
        "Then silence [S1].",
    ]


def test_quote_ending_with_end_mark_then_end_of_text() -> None:
    claims = split_claims("He said “we shall overcome.”")
    assert [c.text for c in claims] == ["He said “we shall overcome.”"]
    assert claims[0].quotes == ("we shall overcome.",)


def test_quote_not_ending_with_end_mark_and_empty_quote() -> None:
    claims = split_claims('He said "yes" and "" [S1].')
    assert claims[0].quotes == ("yes", "")


def test_curly_and_right_only_quotes() -> None:
    claims = split_claims("A “curly quote” and a ”slipped quote” [S1].")
    assert claims[0].quotes == ("curly quote", "slipped quote")


@pytest.mark.parametrize(
    ("opening", "closing"),
    [
        ('"', '"'), ("“", "”"), ("”", "”"), ("„", "“"), ("„", "”"), ("‘", "’"), ("'", "'"),
        ("‚", "‘"), ("«", "»"), ("»", "«"), ("‹", "›"), ("＂", "＂"), ("″", "″"), ("〝", "〞"),
        ("〝", "〟"), ("「", "」"), ("『", "』"), ("''", "''"), ("``", "''"), ("`", "`"),
        ("<q>", "</q>"), ('<Q cite="x">', "</Q >"),
    ],
)  # fmt: skip
def test_every_quotation_mark_in_common_use_is_read(opening: str, closing: str) -> None:
    (claim,) = split_claims(f"He said {opening}we will win{closing} [S1].")
    assert claim.quotes == ("we will win",)
    a, b = claim.quote_spans[0]
    assert claim.text[a:b] == "we will win"
    assert claim.citations == ("S1",) and not claim.unbalanced


@pytest.mark.parametrize(
    ("opening", "closing"),
    [
        ("❝", "❞"), ("❛", "❜"), ("‟", "”"), ("‛", "’"), ("⹂", "”"), ("﹁", "﹂"), ("﹃", "﹄"),
        ("｢", "｣"), ("⸌", "⸍"), ("⸂", "⸃"), ("❮", "❯"), ("\U0001f676", "\U0001f677"),
        ("＇", "＇"),
    ],
)  # fmt: skip
def test_every_other_quote_like_mark_is_read_as_one(opening: str, closing: str) -> None:
    (claim,) = split_claims(f"He said {opening}we will win{closing} [S1].")
    assert claim.quotes == ("we will win",) and not claim.unbalanced
    (claim,) = split_claims(f"He said {opening}the nation’s hope{closing} [S1].")
    assert claim.quotes == ("the nation’s hope",)


def test_quote_like_covers_the_property_and_initial_and_final_punctuation() -> None:
    for ch in "\"'«»‘’‚‛“”„‟‹›「」『』〝〞〟＂＇｢｣❝❞":
        assert ch in QUOTE_LIKE, hex(ord(ch))
    for code in range(0x20, 0x3000):
        if unicodedata.category(chr(code)) in ("Pi", "Pf"):
            assert chr(code) in QUOTE_LIKE
    assert not {"(", ")", "[", "*", "-", "a"} & QUOTE_LIKE


def test_apostrophes_are_not_quotation_marks() -> None:
    claims = split_claims("The nation's and the nation’s hope, the students' books [S1].")
    assert claims[0].quotes == () and not claims[0].unbalanced
    claims = split_claims("He said ‘the nation’s people’ won [S1].")
    assert claims[0].quotes == ("the nation’s people",)


def test_a_blockquote_line_is_a_quote_up_to_its_markers() -> None:
    claims = split_claims("Roosevelt said:\n> We must act now. [S1]\n>no markers")
    assert [c.text for c in claims] == ["Roosevelt said:", "> We must act now. [S1]", ">no markers"]
    assert claims[1].quotes == ("We must act now.",) and claims[1].citations == ("S1",)
    assert claims[2].quotes == ("no markers",)


def test_quote_spans_are_offsets_in_the_claim_text() -> None:
    (claim,) = split_claims('  He said "a b c" and «d e» [S1].')
    assert [claim.text[a:b] for a, b in claim.quote_spans] == ["a b c", "d e"]


@pytest.mark.parametrize(
    "draft",
    [
        'He said "we will win [S1]. Next sentence [S2].',
        "He said “we will win [S1].",
        "He said ‘we will win [S1].",
        "He said 'we will win [S1].",
        "He said «we will win [S1].",
        "He said <q>we will win [S1].",
        "He said we will win” [S1].",
        "He said we will win 」 [S1].",
        "He said we will win</q> [S1].",
        "He said we ’ win [S1].",
        "He said ❝we will win [S1].",
        "He said we will win❞ [S1].",
        "He said ⸌we will win [S1].",
    ],
)
def test_a_mark_without_its_partner_makes_the_sentence_unbalanced(draft: str) -> None:
    claims = split_claims(draft)
    assert claims[0].unbalanced


def test_an_unclosed_quote_runs_to_the_end_of_its_line() -> None:
    claims = split_claims('He said "we will win. [S1] Next [S2].\nAnother "real one" [S1].')
    assert claims[0].quotes == ("we will win. [S1] Next [S2].",)
    assert claims[0].citations == () and claims[0].unbalanced  # brackets inside a quote
    assert claims[1].quotes == ("real one",) and not claims[1].unbalanced


def test_brackets_inside_quotes_are_quote_text() -> None:
    claims = split_claims('He said "the [Congress] acted" [S1].')
    assert claims[0].quotes == ("the [Congress] acted",)
    assert claims[0].citations == ("S1",)
    assert claims[0].malformed == ()


@pytest.mark.parametrize(
    ("draft", "citations", "malformed"),
    [
        ("A [S1].", ("S1",), ()),
        ("A [S1, S2].", ("S1", "S2"), ()),
        ("A [S1; S2].", ("S1", "S2"), ()),
        ("A [S1][S2] and [S1].", ("S1", "S2"), ()),
        ("A [ S12 ].", ("S12",), ()),
        ("A [S].", (), ("[S]",)),
        ("A [Source 1].", (), ("[Source 1]",)),
        ("A [1].", (), ("[1]",)),
        ("A [s1].", (), ("[s1]",)),
        ("A [].", (), ("[]",)),
        ("A [S1, Source 2].", ("S1",), ("[Source 2]",)),
        ("A [S1,].", ("S1",), ("[]",)),
    ],
)
def test_citation_markers(
    draft: str, citations: tuple[str, ...], malformed: tuple[str, ...]
) -> None:
    (claim,) = split_claims(draft)
    assert claim.citations == citations
    assert claim.malformed == malformed


def test_unclosed_bracket_is_plain_text() -> None:
    (claim,) = split_claims("A [S1 without end.")
    assert claim.citations == () and claim.malformed == ()


def test_empty_draft_has_no_claims() -> None:
    assert split_claims("") == []
    assert split_claims("  \n\n  ") == []


def test_strip_markers() -> None:
    assert (
        strip_markers("Prices rose [S1]. Wages [S1, S2] fell [S3].") == "Prices rose. Wages fell."
    )
    assert strip_markers("[S1] Leading.") == "Leading."
    assert (
        strip_markers('He said "the [Congress] acted" [S1].') == 'He said "the [Congress] acted".'
    )
    assert strip_markers("Ends. [S2]\n\nNext [Source 1].") == "Ends.\n\nNext."
    assert strip_markers("No markers.") == "No markers."
