"""A sentence read as units: the words and quotes a passage must hold, frames set aside.

The first half of the grounding contract (docs/grounding.md; the matching is in
`grounding.py`). Words compare case-insensitively after folding a possessive `'s` and a
plural `-s`/`-es`; numbers compare by their digits. Nothing else is folded: this is
extraction, not paraphrase.

Set aside, needing no passage:

* articles (`a`, `an`, `the`), anywhere;
* frames: a maximal stretch of frame vocabulary (the source's metadata, attribution verbs,
  source nouns, `FRAME_WORDS`, articles) that holds an attribution verb or the source's
  title or date. Inside a frame every word is free, except a name, which is free only next
  to an attribution verb (`Roosevelt said`, never `Roosevelt vetoed`), and a subject
  pronoun only before that verb (`he said`, never `said that they`). Between two quotes,
  frame vocabulary alone is a frame (`"..." and "..."`).

Metadata is the carrying source's own: its whole title, each name (whole, or its last word)
and its date as a whole (the year; month and year; the full date in the common orders;
ISO). A date in a frame without an attribution verb dates the event the sentence states
(`In 1941, taxes rose`); those years are reported so the matcher can refuse a passage that
dates the same words otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from .claims import DraftClaim


def vocabulary(words: str) -> frozenset[str]:
    """A closed word list as tokens compare: each word folded (`fold`)."""
    return frozenset(fold(w) for w in words.split())


ARTICLES = frozenset({"a", "an", "the"})
ATTRIBUTION_VERBS_TEXT = (
    "said say says wrote writes stated told noted notes added adds asked asks according"
)
SOURCE_NOUNS_TEXT = "address speech message article remarks post source document"
SUBJECT_PRONOUNS_TEXT = "he she they it"
FRAME_WORDS_TEXT = "his her their its in on of that as and to"
STOP_TEXT = """a an the of to in on at by for with from as that this these those it its is are
    was were be been being has have had do does did and or but if so we i you he she they our
    their his her my your me us him them there here which who what when where how all any
    some no not will would shall should can could may might must"""
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)*")
_MARKER = re.compile(r"\[[^\[\]\n]*\]")
_MONTHS = (
    "january february march april may june july august september october november december"
).split()

_FREE, _NAME, _TITLE, _DATE, _VERB, _NOUN, _PRONOUN, _FRAME, _WORD = range(9)


def fold(word: str) -> str:
    """A word as it is compared: lower case, possessive and plural folded, digits bare."""
    w = word.lower().replace("’", "'")
    if w[:1].isdigit():
        return w.replace(",", "")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("es") and w[:-2].endswith(("s", "x", "z", "ch", "sh")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


ATTRIBUTION_VERBS = vocabulary(ATTRIBUTION_VERBS_TEXT)
SOURCE_NOUNS = vocabulary(SOURCE_NOUNS_TEXT)
SUBJECT_PRONOUNS = vocabulary(SUBJECT_PRONOUNS_TEXT)
FRAME_WORDS = vocabulary(FRAME_WORDS_TEXT)
STOP = vocabulary(STOP_TEXT)


def is_year(word: str) -> bool:
    return len(word) == 4 and word.isdigit() and 1000 <= int(word) <= 2999


@dataclass(frozen=True)
class Token:
    word: str  # folded
    start: int
    end: int


def tokens(text: str, offset: int = 0) -> list[Token]:
    """The words of `text` with their offsets (plus `offset`), in order."""
    return [
        Token(fold(m.group(0)), m.start() + offset, m.end() + offset) for m in _TOKEN.finditer(text)
    ]


def too_short(text: str, min_words: int, min_content: int) -> bool:
    """Fewer than `min_words` words, or fewer than `min_content` that are not stop words."""
    words = [t.word for t in tokens(text)]
    return len(words) < min_words or sum(w not in STOP for w in words) < min_content


@dataclass(frozen=True)
class Metadata:
    """What a source says about itself: the words a sentence may use without a passage."""

    title: str = ""
    date: str | None = None  # ISO, YYYY-MM-DD or longer
    names: tuple[str, ...] = ()  # speaker, author, publisher

    @cached_property
    def phrases(self) -> tuple[tuple[tuple[str, ...], int], ...]:
        """(word sequence, kind) of each piece of metadata, longest first."""
        out: dict[tuple[str, ...], int] = {}
        for name in self.names:
            words = tuple(t.word for t in tokens(name))
            for phrase in (words, words[-1:]):
                if phrase:
                    out[phrase] = _NAME
        for phrase in _date_phrases(self.date):
            out.setdefault(phrase, _DATE)
        title = tuple(t.word for t in tokens(self.title))
        if title:
            out.setdefault(title, _TITLE)
        return tuple(sorted(out.items(), key=lambda p: -len(p[0])))


def _date_phrases(date: str | None) -> set[tuple[str, ...]]:
    """The date as a whole: year; month and year; full date in the common orders; ISO."""
    if not date or not re.match(r"\d{4}-(0[1-9]|1[0-2])-\d{2}", date):
        return set()
    year, month, day = date[:4], int(date[5:7]), str(int(date[8:10]))
    name = _MONTHS[month - 1]
    return {
        (year,),
        (year, date[5:7], date[8:10]),
        (name, year),
        (name, day, year),
        (day, name, year),
    }


@dataclass(frozen=True)
class Unit:
    """A word the passage must hold, or a quote (its index among the sentence's quotes)."""

    word: str = ""
    quote: int | None = None


@dataclass(frozen=True)
class Reading:
    """A sentence as units, and the years it dates its content by (event dates)."""

    units: tuple[Unit, ...]
    event_years: frozenset[str]


def read_units(claim: DraftClaim, metadata: Metadata) -> Reading:
    """The sentence's quotes and the words outside them that a passage must hold, in order."""
    text = claim.text
    units: list[Unit] = []
    years: set[str] = set()
    cursor = 0
    for q, (a, b) in enumerate(claim.quote_spans):
        units.extend(_run_units(_framing_tokens(text, cursor, a), metadata, years, q > 0))
        units.append(Unit(quote=q))
        cursor = b
    units.extend(_run_units(_framing_tokens(text, cursor, len(text)), metadata, years, False))
    return Reading(tuple(units), frozenset(years))


def _framing_tokens(text: str, a: int, b: int) -> list[Token]:
    """Tokens of text[a:b] outside citation markers, offsets into `text`."""
    piece = _MARKER.sub(lambda m: " " * len(m.group(0)), text[a:b])
    return tokens(piece, a)


def _run_units(
    run: list[Token], metadata: Metadata, years: set[str], between_quotes: bool
) -> list[Unit]:
    """Units of a run of words outside quotes; event years are added to `years`. Between
    two quotes, frame vocabulary alone makes a frame (`"..." and "..."`)."""
    kinds = _classify(run, metadata)
    if between_quotes and _WORD not in kinds:
        return []
    units: list[Unit] = []
    i = 0
    while i <= len(run):
        j = i
        while j < len(run) and kinds[j] != _WORD:
            j += 1
        stretch = kinds[i:j]
        said = _VERB in stretch
        verb_at = i + stretch.index(_VERB) if said else j
        is_frame = said or _DATE in stretch or _TITLE in stretch
        if is_frame and not said:
            years.update(
                run[k].word for k in range(i, j) if kinds[k] == _DATE and is_year(run[k].word)
            )
        for k in range(i, j):
            if not _free(kinds[k], is_frame, said, before_verb=k < verb_at):
                units.append(Unit(word=run[k].word))
        if j < len(run):
            units.append(Unit(word=run[j].word))
        i = j + 1
    return units


def _free(kind: int, is_frame: bool, said: bool, before_verb: bool) -> bool:
    """Whether a word of frame vocabulary needs no passage. A name is free only in a frame
    with an attribution verb, and a subject pronoun only before that verb (`he said`, but
    `said that they` speaks for the source's own `we`)."""
    if kind == _FREE:
        return True
    if not is_frame:
        return False
    if kind == _NAME:
        return said
    if kind == _PRONOUN:
        return said and before_verb
    return True


def _classify(run: list[Token], metadata: Metadata) -> list[int]:
    words = [t.word for t in run]
    kinds = [_WORD] * len(run)
    i = 0
    while i < len(words):
        match = next(
            ((p, kind) for p, kind in metadata.phrases if tuple(words[i : i + len(p)]) == p),
            None,
        )
        if match is not None:
            phrase, kind = match
            kinds[i : i + len(phrase)] = [kind] * len(phrase)
            i += len(phrase)
            continue
        w = words[i]
        if w in ARTICLES:
            kinds[i] = _FREE
        elif w in ATTRIBUTION_VERBS:
            kinds[i] = _VERB
        elif w in SOURCE_NOUNS:
            kinds[i] = _NOUN
        elif w in SUBJECT_PRONOUNS:
            kinds[i] = _PRONOUN
        elif w in FRAME_WORDS:
            kinds[i] = _FRAME
        i += 1
    return kinds
