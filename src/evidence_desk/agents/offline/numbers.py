"""Numbers and negation: the two cheap signals that catch a wrong claim with right words.

A claim that reuses its evidence's words but changes a figure ("1,200 troops" for "1,500
troops") or flips a negation ("did not approve" for "approved") has high word overlap and
high embedding similarity, yet says the opposite. These helpers find figures in a
comparable form and negation cues near the words that matter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...textutil import STOPWORDS, stem

_NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90, "dozen": 12,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_NUM = re.compile(
    r"(?<![\w.,])(?P<n>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?(?:st|nd|rd|th|d)?"
    r"|\b(?P<w>"
    + "|".join(_NUMBER_WORDS)
    + r")(?:[-\s](?P<w2>one|two|three|four|five|six|seven|eight|nine))?\b",
    re.I,
)
_AFTER = re.compile(
    r"\s*(?P<pct>%|percent\b|per\s+cent\b)?\s*(?P<scale>hundred|thousand|million|billion)?", re.I
)
_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_UNITS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
}


@dataclass(frozen=True)
class Figure:
    """A number as written, normalised (`value`), with what it counts (`context`)."""

    value: str
    context: tuple[str, ...]
    start: int
    end: int


def _normalise(value: float) -> str:
    if value == int(value):
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".")


def _context(text: str, pos: int) -> tuple[str, ...]:
    """Stems of up to three content words right after a figure."""
    out: list[str] = []
    for m in _WORD.finditer(text, pos):
        if m.start() - pos > 40 or len(out) == 3:
            break
        w = m.group(0).lower()
        if w not in STOPWORDS and not w[:1].isdigit():
            out.append(stem(w))
    return tuple(out)


def _value(m: re.Match[str]) -> tuple[float, bool]:
    """(value, written as a plain integer literal)."""
    if m.group("n"):
        value = float(m.group("n").replace(",", "") + (m.group("frac") or ""))
        return value, not m.group("frac") and m.group(0).replace(",", "").isdigit()
    units = _UNITS.get((m.group("w2") or "").lower(), 0)
    return float(_NUMBER_WORDS[m.group("w").lower()] + units), False


def figures(text: str) -> list[Figure]:
    """Numbers in `text`: digits (commas, decimals, ordinals), number words, scales, percents.

    `context` is ("<year>",) for a bare integer 1000..2100, ("<percent>",) for a percentage,
    else the stems of up to three content words after it ("troop" in "1,500 troops").
    """
    out: list[Figure] = []
    for m in _NUM.finditer(text):
        value, literal = _value(m)
        end = m.end()
        after = _AFTER.match(text, end)
        pct = False
        if after:
            if after.group("scale"):
                value *= _SCALES[after.group("scale").lower()]
                end = after.end("scale")
            pct = bool(after.group("pct"))
        if pct:
            context: tuple[str, ...] = ("<percent>",)
        elif literal and 1000 <= value <= 2100 and "," not in m.group(0):
            context = ("<year>",)
        else:
            context = _context(text, end)
        out.append(Figure(_normalise(value), context, m.start(), end))
    return out


# --------------------------------------------------------------------------- negation

_NEGATION = re.compile(
    r"\b(?:not|never|no|neither|nor|none|nobody|nothing|nowhere|cannot|without|\w+n['’]t)\b", re.I
)
# Phrases that contain a cue word but do not negate the statement.
_NOT_NEGATION = re.compile(
    r"\b(?:not\s+only|not\s+just|not\s+merely|no\s+doubt|no\.\s*\d|without\s+doubt)\b", re.I
)


def is_negation(word: str) -> bool:
    """True for a negation cue word ("not", "never", "don't" ...)."""
    return _NEGATION.fullmatch(word) is not None


def negated(text: str) -> bool:
    """True when `text` contains a negation cue (not, never, no, n't ...)."""
    cleaned = _NOT_NEGATION.sub(" ", text)
    return _NEGATION.search(cleaned) is not None


def negated_near(text: str, terms: frozenset[str] | set[str], slack: int = 3) -> bool:
    """True when a negation cue sits within the stretch of `text` that holds `terms`.

    The stretch runs from `slack` words before the first word whose stem is in `terms` to
    just after the last one; a negation elsewhere in a long sentence does not count.
    """
    cleaned = _NOT_NEGATION.sub(" ", text)
    toks = _WORD.findall(cleaned)
    hits = [i for i, w in enumerate(toks) if stem(w.lower()) in terms]
    if not hits:
        return False
    lo, hi = max(0, hits[0] - slack), hits[-1] + 2
    return any(_NEGATION.fullmatch(w) for w in toks[lo:hi])
