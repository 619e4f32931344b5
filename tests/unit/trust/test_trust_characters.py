"""Hidden characters and markup: what a reader sees must be what the checks read."""

from __future__ import annotations

import pytest

from evidence_desk.trust.characters import hidden_characters
from evidence_desk.trust.claims import split_claims
from evidence_desk.trust.markup import markup


def hidden(draft: str) -> tuple[str, ...]:
    (claim,) = split_claims(draft)
    return hidden_characters(claim)


@pytest.mark.parametrize(
    ("char", "name"),
    [
        ("\u200b", "U+200B ZERO WIDTH SPACE"),
        ("\u200d", "U+200D ZERO WIDTH JOINER"),
        ("\u00ad", "U+00AD SOFT HYPHEN"),
        ("\u2060", "U+2060 WORD JOINER"),
        ("\ufeff", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
        ("\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("\u2066", "U+2066 LEFT-TO-RIGHT ISOLATE"),
        ("\u200f", "U+200F RIGHT-TO-LEFT MARK"),
        ("\u061c", "U+061C ARABIC LETTER MARK"),
    ],
)
def test_format_characters_are_named_with_their_position(char: str, name: str) -> None:
    assert hidden(f"We will{char} win [S1].") == (f"{name} at 7",)
    assert hidden(f'He said "we will{char} win" [S1].') == (f"{name} at 16",)  # quotes too


def test_combining_marks_outside_quotes() -> None:
    found = hidden("We will n\u0336o\u0336t\u0336 win [S1].")
    assert found[0] == "U+0336 COMBINING LONG STROKE OVERLAY at 9" and len(found) == 3
    assert hidden('He said "cafe\u0301 society" [S1].') == ()  # the source's text, compared exactly


def test_mixed_script_words_outside_quotes() -> None:
    assert hidden("We will n\u043et win [S1].") == (
        "the word 'n\u043et' at 8 mixes CYRILLIC and LATIN letters",
    )
    assert hidden("The \u0393\u03b5\u03c9 word and Москва stay [S1].") == ()  # one script each
    assert hidden('He said "n\u043et" here [S1].') == ()


def test_plain_drafts_have_nothing_hidden() -> None:
    assert hidden("The nation’s 3 ships — and 4.5% more — won [S1].") == ()


@pytest.mark.parametrize(
    ("draft", "found"),
    [
        ("It won <script>alert(1)</script> [S1].", ("<script>", "</script>")),
        ("It won <img src=x onerror=alert(1)> [S1].", ("<img src=x onerror=alert(1)>",)),
        (
            "It won [here](javascript:alert(1)) [S1].",
            ("[here](javascript:alert(1))",),
        ),
        ("It won ![x](y.png) [S1].", ("![x](y.png)",)),
        ("It won &lt;b&gt; and &#60; &#x3c; [S1].", ("&lt;", "&gt;", "&#60;", "&#x3c;")),
        ("It won <!-- hidden --> [S1].", ("<!--", "-->")),
        ("It won data: x and <?php ?> [S1].", ("data:", "<?")),
        ("It won 3 < 5 and 5 > 3 [S1].", ()),
        ('He said "<b>bold</b> words" [S1].', ()),  # inside a quote: the source's own text
    ],
)
def test_markup_outside_quotes(draft: str, found: tuple[str, ...]) -> None:
    (claim,) = split_claims(draft)
    assert markup(claim) == found
