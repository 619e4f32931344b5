"""What a question is about: the distinctive terms its evidence must contain.

A question about something the archive never mentions must not be answered with true quotes
about something else. The coverage stage therefore asks, for each distinctive term of the
question, whether the selected evidence holds it. Three kinds of term, read from the
reader's own words:

* **code** — a code-like token: a version or model number attached to a name (`WCAG 3.0`,
  `USWDS 4`, `HTTP/3`, `GPT-4`, `Section 508`), a dotted name (`login.gov`), a word with a
  capital inside (`FedRAMP`, `eGov`; not a surname such as `McKinley`). Its tokens must
  stand next to each other, in order, in one selected passage, its source's title or one
  of the names its words belong to. Always required: a reader who types a
  version number means that version.
* **name** — two or more capitalised words in a row (`Federal Chatbot Council`, `Department
  of Veterans Affairs`; joined by `of` and `the`, not by `and` or `for`, which more often
  join two names, or a title and a name, than stand inside one; a possessive ends a name:
  `Census Bureau's CitySDK` is two). All its content words must occur close together
  (within `NAME_SPAN_EXTRA` words more than the name has, in any order) in one selected
  passage, its source's title or one of the names its words belong to (speaker, author).
  Archives often hold every word of a name that does not exist ("federal", "chatbot",
  "council"), never together.
* **word** — a single key term of the plan that is *distinctive*: written with a capital
  (not as the question's first word), code-like, or uncommon in English (its Zipf frequency
  in `wordfreq` is below `common_zipf`) and not one typing slip away from a common word
  ("agenchy"). A common English word ("surrender") may be a reader's paraphrase of what
  the text says ("gave up") and is left to the evidence score.
  A distinctive word is required only when it is rare in the archive too (see
  `retrieval/coverage.py`).

A question may also ask about **many voices** (`many_voices`): "What did presidents say about
climate change after 2000?" asks what several speakers said, not what the one who said it
most often said. Selection then takes the best document of each speaker first, and the
offline answerer quotes another speaker before a second quote of the same one.

A question written in Title Case (every longer word capitalised) says nothing through its
capitals, so it yields no names and no capitalised words; code tokens still count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from ..textutil import STOPWORDS, stem, words

Kind = Literal["code", "name", "word"]

# Words a question is framed with; never part of a name even when capitalised.
_FRAME = frozenset(
    """what which who whom whose when where why how did does do is are was were has have had
    in on at according during since after before between for from of the a an and or to by
    with about as if can could would should will may might tell list name give describe
    explain compare president presidents mr mrs ms dr vice january february march april may
    june july august september october november december monday tuesday wednesday thursday
    friday saturday sunday""".split()
)
_NAME_JOINERS = frozenset({"of", "the"})
# Adjectives of nationality: capitalised, but they describe the name after them ("the
# Soviet Sputnik satellite" names Sputnik, which a text may mention without "Soviet").
_DEMONYMS = frozenset(
    """american americans soviet russian british english french german chinese japanese
    mexican canadian cuban spanish european african asian korean indian italian irish
    israeli iranian iraqi afghan vietnamese philippine hawaiian alaskan""".split()
)
_MONTH_WORDS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|In|On|By|Since|From|Until|Before|After"
)
_CODE_PATTERNS = (
    # a name and a number: "WCAG 3.0", "USWDS 4", "Section 508", "Windows 10", "v2"
    re.compile(r"\b[A-Za-z][A-Za-z0-9]*[ -]?(?:v|version\s)?\d+(?:\.\d+)+\b"),
    # "USWDS 4", "Drupal 10", "Order 14110"; not a date ("March 15") or a year ("in 2017")
    re.compile(rf"\b(?!(?:{_MONTH_WORDS})\b)[A-Z][A-Za-z]*\s\d+\b(?![.,]\d)"),
    re.compile(r"\b[A-Za-z]+(?:[-/]\d+(?:\.\d+)*)+\b"),  # HTTP/3, GPT-4
    re.compile(r"\b[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*\.(?:gov|com|org|net|io|edu|mil|us)\b", re.I),
    re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b"),  # eGov, iPhone
    # FedRAMP, GitHub; not a surname such as McKinley or DeWitt
    re.compile(r"\b(?!(?:Mc|Mac|De|Di|Du|La|Le|Van|Von)[A-Z])[A-Z][a-z]+[A-Z][A-Za-z]*\b"),
    re.compile(r"\bv\d+(?:\.\d+)*\b", re.I),
)


@dataclass(frozen=True)
class SubjectTerm:
    """One distinctive term: as the reader wrote it, its kind, and what is matched.

    `parts` are stems for names and words, lower-cased raw tokens (`("wcag", "3", "0")`) for
    code, which is matched as a run of tokens.
    """

    surface: str
    kind: Kind
    parts: tuple[str, ...]


def _is_title_case(question: str) -> bool:
    """A headline-style question: every word of three or more letters after the first is
    capitalised (at least three of them), so its capitals carry no signal."""
    long = [t for t in re.findall(r"[A-Za-z][A-Za-z'’.-]*", question)[1:] if len(t) >= 3]
    return len(long) >= 3 and all(t[0].isupper() for t in long)


def code_terms(question: str) -> list[SubjectTerm]:
    """Code-like spans of the question, longest first where they overlap."""
    spans: list[tuple[int, int]] = []
    for pattern in _CODE_PATTERNS:
        for m in pattern.finditer(question):
            spans.append((m.start(), m.end()))
    spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
    kept: list[tuple[int, int]] = []
    for a, b in spans:
        if kept and a < kept[-1][1]:
            if b > kept[-1][1]:
                kept[-1] = (kept[-1][0], b)
            continue
        kept.append((a, b))
    out: list[SubjectTerm] = []
    for a, b in kept:
        surface = question[a:b]
        tokens = tuple(words(surface))
        if tokens and not _names_a_year(surface, tokens):
            out.append(SubjectTerm(surface, "code", tokens))
    return out


_YEARLIKE = re.compile(r"^(?:1[6-9]|20)\d\d$")


def _names_a_year(surface: str, tokens: tuple[str, ...]) -> bool:
    """ "mid-2017", "FY 2019": a period, which the planner reads, not a code-like name."""
    return "." not in surface and any(_YEARLIKE.match(t) for t in tokens)


def capitalised_words(question: str) -> set[str]:
    """Lower-cased words the question writes with a capital, its first word excepted; none
    for a Title Case question."""
    if _is_title_case(question):
        return set()
    found = list(re.finditer(r"[A-Za-z][A-Za-z0-9]*", question))
    return {m.group(0).lower() for m in found[1:] if m.group(0)[0].isupper()}


def name_terms(question: str) -> list[SubjectTerm]:
    """Runs of two or more capitalised content words (joiners allowed inside)."""
    if _is_title_case(question):
        return []
    tokens = list(re.finditer(r"[A-Za-z][A-Za-z0-9'’.-]*", question))
    out: list[SubjectTerm] = []
    run: list[re.Match[str]] = []

    def close() -> None:
        while run and run[0].group(0).lower().rstrip(".") in _DEMONYMS:
            run.pop(0)
        while run and run[-1].group(0).lower() in _NAME_JOINERS:
            run.pop()
        content = [
            re.sub(r"['’]s?$", "", m.group(0))
            for m in run
            if m.group(0).lower() not in _NAME_JOINERS
        ]
        if len(content) >= 2:
            surface = re.sub(r"['’]s?$", "", question[run[0].start() : run[-1].end()])
            surface = surface.rstrip(".")
            parts = tuple(dict.fromkeys(stem(w) for w in words(" ".join(content))))
            out.append(SubjectTerm(surface, "name", parts))
        run.clear()

    for i, m in enumerate(tokens):
        word = m.group(0)
        low = word.lower().rstrip(".")
        if run and question[run[-1].end() : m.start()].strip():
            close()  # a name's words are separated by spaces only: "Efficiency (DOGE)"
        capital = word[0].isupper() and not (i == 0 or low in _FRAME)
        if (capital and low not in STOPWORDS) or (run and low in _NAME_JOINERS and word.islower()):
            run.append(m)
            if re.search(r"['’]s?$", word):
                close()  # "Kublai's Chinese advisers": a possessive ends the name
        else:
            close()
    close()
    return out


@lru_cache(maxsize=4096)
def english_zipf(word: str) -> float:
    """How common a word is in English (Zipf scale: 7 for "the", 3 for rare words, 0 for
    words wordfreq has never seen). Loaded on first use: it costs ~0.5 s once."""
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _one_edit(word: str) -> set[str]:
    """Every string one deletion, transposition, substitution or insertion from `word`."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return (
        {a + b[1:] for a, b in splits if b}
        | {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
        | {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
        | {a + c + b for a, b in splits for c in _LETTERS}
    )


@lru_cache(maxsize=4)
def _common_words(common_zipf: float) -> frozenset[str]:
    """English words at least as common as `common_zipf` (about 29,000 at 3.0)."""
    from wordfreq import get_frequency_dict, zipf_to_freq

    least = zipf_to_freq(common_zipf)
    return frozenset(w for w, f in get_frequency_dict("en").items() if f >= least)


def misspells_common_word(word: str, common_zipf: float) -> bool:
    """True when one edit turns `word` into a common English word ("agenchy" -> "agency",
    "parliment" -> "parliament"): readers mistype, and a typo is not a new subject. Words
    under five letters are too close to too many others to judge."""
    if len(word) < 5:
        return False
    common = _common_words(common_zipf)
    return any(w in common for w in _one_edit(word) if len(w) >= 4)


def is_distinctive_word(word: str, capitalised: set[str], common_zipf: float) -> bool:
    """A key term the question's subject rests on: capitalised, code-like, or uncommon in
    English and not a one-letter slip from a common word."""
    low = word.lower()
    if low in capitalised or (any(c.isdigit() for c in low) and any(c.isalpha() for c in low)):
        return True
    if common_zipf <= 0 or english_zipf(low) >= common_zipf:
        return False
    return not misspells_common_word(low, common_zipf)


NAME_SPAN_EXTRA = 3


def _same_word(part: str, token: str) -> bool:
    """A stem, or a stem sharing its first four or more letters (`textutil.term_in`)."""
    if part == token:
        return True
    return len(part) >= 4 and len(token) >= 4 and (token.startswith(part) or part.startswith(token))


def close_together(parts: tuple[str, ...], stems: list[str]) -> bool:
    """True when every part matches a stem of `stems` inside one run of
    `len(parts) + NAME_SPAN_EXTRA` consecutive stems."""
    span = len(parts) + NAME_SPAN_EXTRA
    first = [i for i, t in enumerate(stems) if any(_same_word(p, t) for p in parts)]
    return any(
        all(any(_same_word(p, t) for t in stems[i : i + span]) for p in parts) for i in first
    )


def in_order(tokens: tuple[str, ...], haystack: list[str]) -> bool:
    """True when `tokens` stand next to each other, in order, somewhere in `haystack`."""
    n = len(tokens)
    first = tokens[0]
    return any(
        haystack[i] == first and tuple(haystack[i : i + n]) == tokens
        for i in range(len(haystack) - n + 1)
    )


def unique_terms(terms: Iterable[SubjectTerm]) -> list[SubjectTerm]:
    seen: set[tuple[str, tuple[str, ...]]] = set()
    out: list[SubjectTerm] = []
    for t in terms:
        key = (t.kind, t.parts)
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out


# A group of speakers named in the plural, or by "each" / "every" / "different" and a singular.
_MANY_VOICES = re.compile(
    r"\b(?:(?:presidents|administrations|leaders|officials|agencies|authors|writers|"
    r"speakers|governments)\b|(?:each|every|different|various|successive)\s+"
    r"(?:president|administration|leader|official|agency|author|writer|speaker)s?\b)",
    re.IGNORECASE,
)


def many_voices(question: str) -> bool:
    """Whether the question asks what several speakers said ("What did presidents say
    ...?", "How did successive administrations ...?")."""
    return _MANY_VOICES.search(question) is not None
