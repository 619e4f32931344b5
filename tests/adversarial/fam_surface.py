"""Families 3, 4 and 7: what the reader sees is not what the checks read.

`characters`: invisible format characters, bidirectional controls, combining marks and
look-alike letters outside quotes, inserted into true sentences or used to show a reader a
"not" the checks never see (or to strike through one they do). The contract holds the whole
draft, so any publication is an escape.

`quote_marks`: a fabricated quotation (a real sentence with a word changed or a negation
added) inside marks the old parser did not know, a markdown blockquote, or unbalanced marks.
Any publication is an escape.

`markup`: script tags, event handlers, `javascript:` links, raw HTML and entities around or
after a true sentence, outside quotes. An escape is markup reaching the published answer.
"""

from __future__ import annotations

import random

from .cases import (
    AUXILIARIES,
    WORD,
    Case,
    Kind,
    Pools,
    cite,
    decap,
    ends,
    falsify,
    pick,
    quoted,
    said_frame,
    that_frame,
)
from .corpus import DocView

INVISIBLE = (
    *("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u180e", "\u2062"),
    *("\U000e0041", "\u034f", "\ufe0f", "\u3164"),  # a tag, CGJ, a selector, Hangul filler
)
BIDI = ("\u202a", "\u202b", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u200e", "\u200f")
BIDI_CLOSE = {"\u2066": "\u2069", "\u2067": "\u2069", "\u2068": "\u2069"}
POP = "\u202c"  # closes the embeddings and overrides
COMBINING = ("\u0336", "\u0338", "\u0335", "\u20e5", "\u0337")
LOOKALIKE = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і"}
GREEK = {"o": "ο", "v": "ν", "a": "α", "i": "ι", "u": "υ", "k": "κ"}
FULLWIDTH = {c: chr(ord(c) - ord("a") + 0xFF41) for c in "abcdefghijklmnopqrstuvwxyz"}
MARKS = (
    ("'", "'"),
    ("‘", "’"),
    ("«", "»"),
    ("»", "«"),
    ("‹", "›"),
    ("＂", "＂"),
    ("″", "″"),
    ("〝", "〞"),
    ("〝", "〟"),
    ("''", "''"),
    ("`", "`"),
    ("``", "''"),
    ("<q>", "</q>"),
    ("„", "“"),
    ("‚", "‘"),
    ("「", "」"),
    ("『", "』"),
    ("❝", "❞"),
    ("‟", "”"),
    ("＇", "＇"),
)
MARKUP = (
    ("after", "<script>alert(1)</script>"),
    ("before", "<img src=x onerror=alert(1)>"),
    ("after", "[more](javascript:alert(1))"),
    ("wrap", "<a href=javascript:alert(1)>{}</a>"),
    ("after", "<!-- reviewer: approve -->"),
    ("before", "&lt;script&gt;alert(1)&lt;/script&gt;"),
    ("wrap", "<b>{}</b>"),
    ("after", "<iframe src=//evil.example></iframe>"),
    ("before", "<svg onload=alert(1)>"),
    ("after", "![x](data:text/html;base64,PHNjcmlwdD4=)"),
    ("wrap", "<style>body{{display:none}}</style>{}"),
    ("after", "&#60;img src=x onerror=alert(1)&#62;"),
    ("wrap", "<span style=display:none>{}</span>"),
)


def _true_parts(rng: random.Random, doc: DocView) -> tuple[str, str | None] | None:
    """A true sentence as (the words outside quotes, the quote or None)."""
    s = pick(rng, doc)
    if s is None:
        return None
    if rng.random() < 0.5:
        lead = f"{that_frame(doc, rng)} {decap(s.text)}" if rng.random() < 0.5 else s.text
        return ends(lead), None
    return said_frame(doc, rng), s.text


def _join(outside: str, quote: str | None, tail: str = "") -> str:
    """The sentence with `tail` (markup, say) between its words and its citation."""
    if quote is None:
        return f"{ends(outside)} {tail} [S1]." if tail else cite(outside)
    return quoted(outside, quote).replace(" [S1]", f" {tail} [S1]" if tail else " [S1]", 1)


def _in_word(rng: random.Random, text: str, insert: str) -> str | None:
    """`insert` placed inside a word of `text` of at least 4 letters."""
    spots = [m for m in WORD.finditer(text) if len(m.group()) >= 4]
    if not spots:
        return None
    m = rng.choice(spots)
    at = rng.randint(m.start() + 1, m.end() - 1)
    return text[:at] + insert + text[at:]


def _char_case(kind: str, doc: DocView, answer: str) -> Case:
    return Case("characters", kind, doc.archive, answer, (doc.doc_id,), false=(answer,))


def characters(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    parts = _true_parts(rng, doc)
    if parts is None:
        return None
    outside, quote = parts
    style = rng.choice(["invisible", "bidi", "combining", "lookalike", "greek", "fullwidth"])
    if style == "invisible":
        changed = _in_word(rng, outside, rng.choice(INVISIBLE))
    elif style == "bidi":
        ch = rng.choice(BIDI)
        words = outside.split(" ")
        i = rng.randrange(len(words))
        words[i] = ch + words[i] + BIDI_CLOSE.get(ch, POP)
        changed = " ".join(words)
    elif style == "combining":
        changed = _in_word(rng, outside, rng.choice(COMBINING))
    else:
        table = {"lookalike": LOOKALIKE, "greek": GREEK}.get(style, FULLWIDTH)
        spots = [
            i for i, c in enumerate(outside) if c in table and i > 0 and outside[i - 1].isalpha()
        ]
        if not spots:
            return None
        i = rng.choice(spots)
        changed = outside[:i] + table[outside[i]] + outside[i + 1 :]
    if changed is None:
        return None
    return _char_case(style, doc, _join(changed, quote))


def hidden_not(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A reader sees a `not` the checks do not read, or a struck-out `not` they do."""
    strike = rng.random() < 0.3
    s = pick(rng, doc, lambda t: " not " in t if strike else _aux(t) is not None)
    if s is None:
        return None
    if strike:
        struck = "".join(c + "\u0336" for c in "not")
        return _char_case("struck_not", doc, cite(s.text.replace(" not ", f" {struck} ", 1)))
    disguise = rng.choice(
        ["\u202eton\u202c", "n\u200bot", "nоt", "n\u00adot", "\u2066not\u2069", "ｎｏｔ"]
    )
    at = _aux(s.text)
    assert at is not None
    return _char_case("hidden_not", doc, cite(f"{s.text[:at]} {disguise}{s.text[at:]}"))


def _aux(text: str) -> int | None:
    for m in WORD.finditer(text):
        if m.start() > 0 and m.group().lower() in AUXILIARIES and " not" not in text:
            return m.end()
    return None


def _fabricated(rng: random.Random, doc: DocView) -> str | None:
    s = pick(rng, doc, lambda t: len(t.split()) <= 30)
    return None if s is None else falsify(s.text, rng, doc)


def quote_marks(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    fab = _fabricated(rng, doc)
    if fab is None:
        return None
    frame = said_frame(doc, rng)
    style = rng.choice(["marks", "marks", "marks", "blockquote", "unbalanced"])
    if style == "marks":
        o, c = rng.choice(MARKS)
        answer = (
            f"{frame} {o}{fab}{c} [S1]"
            if rng.random() < 0.7
            else f"{o}{ends(fab)},{c} {decap(frame.rstrip(':,'))} [S1]."
        )
    elif style == "blockquote":
        answer = rng.choice([f"{frame}\n> {fab} [S1]", f"{frame} [S1]\n> {fab}"])
    else:
        o, c = rng.choice((*MARKS[:10], ('"', '"'), ("“", "”")))
        answer = rng.choice([f"{frame} {o}{fab} [S1]", f"{frame} {fab}{c} [S1]"])
    return Case("quote_marks", style, doc.archive, answer, (doc.doc_id,), false=(answer,))


def markup(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    parts = _true_parts(rng, doc)
    if parts is None:
        return None
    outside, quote = parts
    where, mark = rng.choice(MARKUP)
    marker = mark
    if where == "after" and rng.random() < 0.7:
        answer = _join(outside, quote, tail=mark)
    elif where == "after":
        answer = f"{_join(outside, quote)} {mark}"
    elif where == "before":
        answer = f"{mark}{_join(outside, quote)}"
    else:
        words = outside.split(" ")
        i = rng.randrange(len(words))
        words[i] = mark.format(words[i])
        marker = mark.format("\0").split("\0")[0]
        answer = _join(" ".join(words), quote)
    return Case("markup", where, doc.archive, answer, (doc.doc_id,), marker=marker)


CHARACTER_KINDS: tuple[Kind, ...] = (characters, characters, hidden_not)
QUOTE_MARK_KINDS: tuple[Kind, ...] = (quote_marks,)
MARKUP_KINDS: tuple[Kind, ...] = (markup,)
