"""Assertion: does the source assert the words a sentence takes from it, where it has them?

Grounding (`grounding.py`) proves that a sentence's words are in one passage, in order. This
module reads the carrying source sentence in its structural context and refuses words the
source holds without asserting them (docs/grounding.md, "Assertion in context"):

* a question: the carrying source sentence ends with `?` and the sentence does not ask it;
* a reported view: earlier in the carrying source sentence, a view is given to others
  (`some say`, `there are those who`, `critics argue`, `we are told`, `it is said`, `a
  common misconception`, `the notion that`), or the sentence before sets one up
  (`Here is a common myth:`);
* a refutation: the next source sentence rejects it (`That is dangerous nonsense.`, `That
  is not true.`, `Nothing could be further from the truth.`);
* a label: its line starts with a label of its own (`Myth #2.`, `DON'T:`), or sits right
  under a label line (`Myth #2`) or under a heading that is only a label (`Common myths`);
* a condition: earlier in the carrying source sentence, however far back, a condition
  (`if`, `unless`, `provided that`, `whether`, `lest`, `without`, `suppose`; `Should we ...` or
  `Were we to ...` at its start);
* another speaker's words: the words sit inside quotation marks of the source, and the
  sentence neither says they are quoted nor names the one the source quotes;
* another time: the sentence dates its content by the source's own date while the carrying
  source sentence, outside the carried words, dates it otherwise (`Last year,`, `two years
  ago`, `in the past`).

A cue the sentence carries itself is no cue against it: the rules look only before the
carried words (or after them, for the refutation), so `Nixon said some say that ...` is
asserted by its source. Context is read only inside the `region` the caller gives, the
consecutive passages around the carrying window: a receipt re-derives the same finding from
its recorded passages, and `check` gives every passage of the document.
"""

from __future__ import annotations

import re

from .claims import DraftClaim
from .units import STOP, fold

# A source sentence ends at `.`, `!` or `?` (closing quotes and brackets included), or at a
# line break; an abbreviation's period may end it early, which only narrows what is read.
_SENTENCE_END = re.compile(r"[.!?][\"'”’»)\]]*(?=\s|$)|\n")
_PARAGRAPH = re.compile(r"\n")
_QUESTION_END = re.compile(r"\?[\"'”’»)\]]*$")
_SUBJECTS = (
    r"some|others|many|those|critics|opponents|skeptics|sceptics|cynics|pessimists|"
    r"people|they|someone|somebody|few"
)
_REPORTING = (
    r"say|says|said|saying|argue|argues|argued|claim|claims|claimed|believe|believes|"
    r"believed|think|thinks|thought|insist|insists|insisted|contend|contends|contended|"
    r"suggest|suggests|suggested|tell|tells|told|maintain|maintains|assert|asserts|charge|"
    r"charges|predict|predicts|predicted|fear|fears|feared|hold|holds|would have"
)
_REPORTED = re.compile(
    rf"\b(?:{_SUBJECTS})\b(?:\s+[\w'’-]+){{0,4}}?\s+(?:{_REPORTING})\b"
    r"|\b(?:we|you)\s+(?:are|were|have\s+been|will\s+be|may\s+be)\s+(?:told|warned|assured)\b"
    r"|\b(?:we|you)\s+(?:hear|heard|will\s+hear|may\s+hear|often\s+hear)\b"
    r"|\bit\s+(?:is|was|has\s+been|will\s+be|may\s+be)\s+(?:said|claimed|argued|suggested|"
    r"alleged|asserted|often\s+said)\b"
    r"|\bthere\s+(?:are|were)\s+(?:those|some|people|voices)\b"
    r"|\b(?:misconceptions?|myths?|fallac(?:y|ies)|falsehoods?)\b"
    r"|\bthe\s+(?:notion|idea|argument|claim|belief|assumption|charge|view)\s+that\b",
    re.IGNORECASE,
)
_REFUTATION = re.compile(
    r"\b(?:nonsense|untrue|false|falsehood|wrong|mistaken|myth|fallacy|fiction|baloney|"
    r"absurd|ridiculous)\b|\ba\s+lie\b"
    r"|\bnot\s+(?:true|so|the\s+case|correct|right|accurate)\b"
    r"|\bfurther\s+from\s+the\s+truth\b"
    r"|\b(?:i|we)\s+(?:disagree|reject\s+(?:that|this|it)|do\s+not\s+agree|don['’]t\s+agree)\b",
    re.IGNORECASE,
)
_SETUP_SLACK = 1  # content words a setup may hold around its cue ("Here is a common myth.")
_REFUTATION_WORDS = 15  # a refutation is a short sentence of its own
# ... that points back at what came before: "That is nonsense", not "It is false that X".
_ANAPHOR = re.compile(
    r"^\W*(?:but\s+|and\s+|yet\s+)?(?:that|this|such|these|those|it|nothing|not|wrong|"
    r"nonsense|baloney|false|untrue|none|neither|they|i|we)\b",
    re.IGNORECASE,
)
_OWN_CLAUSE = re.compile(r"\s+(?:that|to|of|for|in|about)\b", re.IGNORECASE)
_LABEL = (
    r"(?:common\s+|popular\s+)?(?:myths?|misconceptions?|mistakes?|fiction|false|wrong|"
    r"incorrect|don['’]?ts?|do\s+not|avoid|bad(?:\s+examples?)?|what\s+not\s+to\s+do)"
)
# A label at the start of the carrying line: `Myth #2.`, `DON'T:`, `Wrong -`.
_LABEL_LEAD = re.compile(rf"^[\W_]*{_LABEL}(?:\s*(?:#|no\.?)?\s*\d+)?\s*[:.!)–—-]", re.IGNORECASE)
# A line that is only a label: `Myth #2`, `DON'T`, `Common myths`.
_LABEL_LINE = re.compile(rf"^[\W_]*{_LABEL}(?:\s*(?:#|no\.?)?\s*\d+)?[\W_]*$", re.IGNORECASE)
_FACT_LEAD = re.compile(r"^[\W_]*(?:facts?|truth|do|dos|do's|correct|right)\b", re.IGNORECASE)
_HEADING_WORDS = 8  # a line this short, with no end mark, reads as a heading
_LIST_ITEM = re.compile(r"[-*+•]\s|\d+[.)]\s")
_CONDITION = re.compile(
    r"\b(?:if|unless|whether|lest|without|suppose|supposing|assuming|in\s+case)\b"
    # `provided that we`, not `the ships provided for by the act`
    r"|\b(?:provided|providing)\s+(?:that|we|you|they|it|he|she|i)\b"
    r"|^\W*(?:should|were|had)\s+(?:we|you|they|it|he|she|i|the|this|that|congress|our)\b",
    re.IGNORECASE,
)
_ELSEWHEN = re.compile(
    r"\b(?:last|past|previous|preceding|prior)\s+(?:\w+\s+)?(?:years?|months?|decades?|"
    r"sessions?|weeks?|winter|summer|spring|fall|autumn|century|generation)\b"
    r"|\b(?:ago|yesterday|formerly|earlier|heretofore|hitherto)\b"
    r"|\bin\s+the\s+past\b|\b(?:since|until|before|after)\s+\d{4}\b",
    re.IGNORECASE,
)
_QUOTED = re.compile(
    r"\b(?:quot\w*|cit(?:ed|ing|es)|words\s+of|recall(?:ed|ing|s)?|phrase|term|expression|"
    r"titled|entitled|uses?\s+the\s+words|used\s+the\s+words|spoke\s+of|speaks\s+of)\b",
    re.I,
)
_SOURCE_QUOTE = re.compile(r"“[^”\n]*(?:”|$)|\"[^\"\n]*(?:\"|$)|«[^»\n]*(?:»|$)|„[^“”\n]*[“”]")
# ... unless the source puts them in its own speaker's mouth ("Let us say to them: ...").
_OWN_VOICE = re.compile(
    r"\b(?:i|we|us)\s+(?:\w+\s+)?(?:say|said|tell|told|declare|declared|ask|asked|write|"
    r"wrote|repeat|repeated|answer|answered)\b[^.!?]*$",
    re.IGNORECASE,
)
_NAME = re.compile(r"\b[A-Z][\w'’-]{2,}")
_NAME_REACH = 120  # characters before a source's quote searched for the one it quotes

_QUESTION = "{sid} asks this as a question; it does not assert it"
_REPORTED_VIEW = "{sid} gives these words as a view it reports (someone else's, or one it rejects)"
_REFUTED = "the next sentence of {sid} refutes the words it uses"
_LABELLED = "{sid} has these words under a label of their own (a myth, a don't, a mistake)"
_CONDITIONAL = "{sid} says this only under a condition the sentence leaves out"
_QUOTED_OTHER = "{sid} quotes these words from someone else; the sentence gives them as its own"
_OTHER_TIME = "{sid} dates these words to another time than the date the sentence gives them"


def unasserted(
    text: str,
    region: tuple[int, int],
    span: tuple[int, int],
    claim: DraftClaim,
    event_dated: bool = False,
) -> str | None:
    """The reason the source does not assert text[span] (a `{sid}` template), or None.

    `region` bounds what may be read as context; `event_dated` says the sentence dates its
    content by the source's own date (a date frame without an attribution verb).
    """
    claim_text = claim.text
    lo, hi = region
    a, b = span
    s0, s1 = _sentence_at(text, lo, hi, a, b)
    before, sentence = text[s0:a], text[s0:s1]
    if _QUESTION_END.search(sentence.rstrip()) and "?" not in claim_text:
        return _QUESTION
    fact = bool(_FACT_LEAD.match(text[_line_start(text, lo, a) : a]))
    if not fact and _labelled(text, lo, a):
        return _LABELLED
    if _REPORTED.search(before) or (not fact and _sets_up(text, lo, s0)):
        return _REPORTED_VIEW
    if _refuted(text, s1, hi):
        return _REFUTED
    if _CONDITION.search(before):
        return _CONDITIONAL
    if _quoted_other(text, lo, hi, a, b, _own_words(claim)):
        return _QUOTED_OTHER
    # (a time the carried words hold themselves is the reader's to see: `"Last month we ..."`)
    if event_dated and _ELSEWHEN.search(f"{before} {text[b:s1]}"):
        return _OTHER_TIME
    return None


def _sentence_at(text: str, lo: int, hi: int, a: int, b: int) -> tuple[int, int]:
    """(start, end) of the source sentences holding text[a:b], within [lo, hi)."""
    start = lo
    for m in _SENTENCE_END.finditer(text, lo, a):
        start = m.end()
    end_match = _SENTENCE_END.search(text, max(b - 1, lo), hi)
    end = end_match.end() if end_match else hi
    while start < a and text[start].isspace():
        start += 1
    return start, end


def _previous_sentence(text: str, lo: int, s0: int) -> str:
    """The source sentence before the one starting at `s0` (blank lines skipped)."""
    k = s0
    while k > lo and text[k - 1].isspace():
        k -= 1
    if k <= lo:
        return ""
    start, _ = _sentence_at(text, lo, k, max(k - 1, lo), k)
    return text[start:k].strip()


def _sets_up(text: str, lo: int, s0: int) -> bool:
    """The sentence before introduces a reported view and says nothing of its own: it ends
    with a colon after the cue, or the cue is all of it but stop words and a content word at
    either end (`Here is a common myth.`, `Some say otherwise.`; not `Some say we cannot
    afford it.`)."""
    prev = _previous_sentence(text, lo, s0)
    cue = _REPORTED.search(prev)
    if cue is None:
        return False
    if prev.endswith(":"):
        return True
    lead, tail = _content(prev[: cue.start()]), _content(prev[cue.end() :])
    return lead <= _SETUP_SLACK and tail <= _SETUP_SLACK


def _content(text: str) -> int:
    """The number of words in `text` that are not stop words."""
    return sum(fold(w) not in STOP for w in re.findall(r"[\w'’-]+", text))


def _refuted(text: str, s1: int, hi: int) -> bool:
    """The next source sentence is short and rejects what came before."""
    k = s1
    while k < hi and text[k].isspace():
        k += 1
    if k >= hi:
        return False
    end = _SENTENCE_END.search(text, k, hi)
    nxt = text[k : end.end() if end else hi]
    if len(nxt.split()) > _REFUTATION_WORDS or not _ANAPHOR.match(nxt):
        return False
    return any(not _OWN_CLAUSE.match(nxt, m.end()) for m in _REFUTATION.finditer(nxt))


def _line_start(text: str, lo: int, a: int) -> int:
    k = text.rfind("\n", lo, a)
    return lo if k < 0 else k + 1


def _labelled(text: str, lo: int, a: int) -> bool:
    """A label leads the carrying line, or the line above (or the heading above, blank
    lines and ordinary lines in between) is only a label. (A line led by `Fact:` is the
    source's own: the caller does not ask.)"""
    start = _line_start(text, lo, a)
    line = text[start:a]
    if _LABEL_LEAD.match(line):
        return True
    end = start - 1
    while end > lo:
        begin = _line_start(text, lo, end)
        above = text[begin:end].strip()
        end = begin - 1
        if not above:
            continue
        if _LABEL_LINE.match(above):
            return True
        if _heading(above):
            return False
    return False


def _heading(line: str) -> bool:
    """A short line with no end mark that is not an item of a list."""
    return (
        len(line.split()) <= _HEADING_WORDS
        and not line.endswith((".", "!", "?", ":", ";", ","))
        and not _LIST_ITEM.match(line)
    )


def _own_words(claim: DraftClaim) -> str:
    """The sentence's text with its quotes blanked out: the words it says in its own voice."""
    chars = list(claim.text)
    for a, b in claim.quote_spans:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def _quoted_other(text: str, lo: int, hi: int, a: int, b: int, own: str) -> bool:
    """text[a:b] lies inside a quotation of the source, and the sentence, in its own words,
    neither says it is quoted nor names anyone written right before the source's quotation."""
    start = _line_start(text, lo, a)
    end = text.find("\n", b, hi)
    line_end = hi if end < 0 else end
    for m in _SOURCE_QUOTE.finditer(text, start, line_end):
        if not (m.start() < a and b <= m.end()):
            continue
        if _QUOTED.search(own):
            return False
        lead = text[max(start, m.start() - _NAME_REACH) : m.start()]
        if _OWN_VOICE.search(lead):
            return False
        names = {n for n in _NAME.findall(lead) if fold(n) not in STOP}
        return not any(re.search(rf"\b{re.escape(n)}\b", own) for n in names)
    return False
