"""The answer as a whole: sentences that lean on another sentence of the answer.

Each sentence is grounded on its own (`grounding.py`), but a reader reads them in order, and
some sentences mean what they mean only next to another (docs/grounding.md, "The answer as a
whole"). A sentence LEANS ON another when:

* it opens with a connective that ties it to the sentence before (`As a result,`, `So`,
  `Therefore`, `That is why`, ...; `CONNECTIVES`): the source must say it right after that
  sentence, so the sentence before is carried by the same source just before its words (no
  more than the rest of one source sentence between them);
* the words it carries open with a word that points back (`This`, `It`, `They`, `Such`;
  `ANAPHORS`) and it has no quote: what they name is what the source said just before,
  so the same holds;
* its frame names the speaker by a pronoun (`He added that`, `It also said:`): the pronoun
  is the speaker of the sentence before, which must cite the source that carries this one;
* it opens with a time from the sentence before (`Decades later,`, `Years later,`, `A
  century later,`: `LATER`): the source that carries it must be dated that long after the
  source that carries the sentence before (`LATER_REACH`, in years); a number of years
  (`140 years later,`, at most 3 digits) must be the difference of the two sources' years,
  or one less (the dates may fall less than a full year further apart), and only then is
  the number a figure the sentence need not find in its passage (`checks.py`);
* the source's next sentence is a short limit on what it carries (at most `LIMIT_WORDS`
  words opening with `But only if`, `Not yet`, `Unless`, ...: `LIMITS`): the next sentence
  of the answer must be carried by that limit, and it leans on that next sentence;
* an earlier sentence opens with a yes or no (`Yes.`, `No, he did not.`, `Yes: ...`): every
  sentence after it leans on it (code cannot check the premise a yes confirms, so such a
  sentence is grounded only when its source says the `Yes` too).

The first sentence of an answer leans on nothing before it. A leaning sentence whose
condition above fails has a grounding problem; one whose condition holds is kept only while
the sentences it leans on are kept (`gate.py` prunes them together). `leans` is pure: the
receipt's consistency check re-derives it from the recorded passages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .claims import DraftClaim, strip_markers
from .grounding import Finding

CONNECTIVES = re.compile(
    r"^\W*(?:as\s+a\s+(?:result|consequence)|so|therefore|thus|hence|consequently|"
    r"accordingly|in\s+turn|in\s+response|in\s+consequence|because\s+of\s+(?:this|that)|"
    r"for\s+(?:this|that|these|those)\s+reasons?|(?:that|this)\s+is\s+why|that['’]s\s+why|"
    r"(?:that|this)\s+(?:is|was)\s+(?:the\s+)?reason|to\s+that\s+end|to\s+this\s+end)\b",
    re.IGNORECASE,
)
# Subjects that point back (a possessive, `Their children`, names its own noun).
ANAPHORS = re.compile(r"^\W*(?:this|that|these|those|such|it|they|he|she)\b", re.IGNORECASE)
_FRAME_PRONOUN = re.compile(r"^\W*(?P<p>he|she|it|they)\b", re.IGNORECASE)
LIMITS = re.compile(
    r"^\W*(?:but\s+)?(?:only\s+(?:if|when|after|until|in|for|a\s+few|some)|"
    r"not\s+(?:yet|until|unless|if|without|always|everywhere|for\s+long|all|every)|"
    r"unless|provided|at\s+least\s+not|but\s+not|that\s+is,?\s+if|except)\b",
    re.IGNORECASE,
)
# How far after the sentence before's source a `... later` sentence's source is dated.
LATER = re.compile(
    r"^\W*(?:(?P<years>\d{1,3})\s+years|(?P<span>years|decades|a\s+decade|a\s+century|"
    r"centuries|a\s+generation|generations))\s+later\b",
    re.IGNORECASE,
)
LATER_REACH = {
    "years": (2, 10_000), "decades": (20, 10_000), "a decade": (5, 15),
    "a century": (80, 120), "centuries": (150, 10_000), "a generation": (15, 40),
    "generations": (40, 10_000),
}  # fmt: skip
LIMIT_WORDS = 12  # a limit is a fragment that leans back: `But only if we act.`, `Not yet.`
_REPLY = re.compile(r"^\W*(?:yes|no)\b(?!-)", re.IGNORECASE)
# A source sentence ends at `.`, `!` or `?` (closing quotes and brackets included).
_SENTENCE_END = re.compile(r"[.!?][\"'”’»)\]]*(?=\s|$)|\n")

_CONNECTIVE = (
    "it opens with “{lead}”, which ties it to the sentence before; {sid} does not say it "
    "right after that sentence"
)
_ANAPHOR = (
    "its words open with “{lead}”, which points to what {sid} says just before them; the "
    "answer's sentence before is not that"
)
_PRONOUN = "its “{lead}” reads as the speaker of the sentence before, which does not cite {sid}"
_LATER = (
    "it opens with “{lead}”, but {sid} is not dated that long after the source of the "
    "sentence before"
)
_LIMITED = "the next sentence of {sid} limits these words (“{lead}”); the answer leaves it out"


@dataclass(frozen=True)
class Lean:
    """What one sentence needs of the others: the 1-based numbers of the sentences it leans
    on, and the problem when the answer does not give it what it needs."""

    on: tuple[int, ...] = ()
    problem: str | None = None


def leans(
    claims: Sequence[DraftClaim],
    findings: Sequence[Finding],
    texts: Mapping[str, str],
    dates: Mapping[str, str | None] | None = None,
) -> list[Lean]:
    """For each claim, what it leans on (see the module's docstring). `findings` are the
    claims' grounding findings, in order; `texts` the stored text of each source id, and
    `dates` its date (ISO; none: undated)."""
    out: list[Lean] = []
    reply = next((k for k, c in enumerate(claims) if _REPLY.match(strip_markers(c.text))), None)
    for k, (claim, finding) in enumerate(zip(claims, findings, strict=True)):
        on: list[int] = []
        problem = None
        if reply is not None and k > reply:
            on.append(reply + 1)
        if k > 0:
            problem = _back(claims[k - 1], findings[k - 1], claim, finding, texts, on, k)
            problem = problem or _later(findings[k - 1], claim, finding, dates or {}, on, k)
        if problem is None:
            nxt = findings[k + 1] if k + 1 < len(claims) else None
            problem = _forward(finding, nxt, texts, on, k)
        out.append(Lean(tuple(dict.fromkeys(on)), problem))
    return out


def _back(
    prev: DraftClaim,
    before: Finding,
    claim: DraftClaim,
    finding: Finding,
    texts: Mapping[str, str],
    on: list[int],
    k: int,
) -> str | None:
    """The problem of a sentence that leans on the one before it (number `k`), if any."""
    if finding.span is None or finding.source_id is None:
        return None  # not grounded anyway
    sid, text = finding.source_id, texts[finding.source_id]
    plain = strip_markers(claim.text)
    carried = text[finding.span[0] : finding.span[1]]
    connective = CONNECTIVES.match(plain)
    anaphor = None if claim.quotes else ANAPHORS.match(carried)
    if connective or anaphor:
        on.append(k)
        if not _right_before(before, finding, text):
            m = connective or anaphor
            assert m is not None
            template = _CONNECTIVE if connective else _ANAPHOR
            return template.format(lead=_lead(m.group(0)), sid=sid)
        return None
    pronoun = _FRAME_PRONOUN.match(plain)
    if pronoun and not re.match(rf"\W*{pronoun['p']}\b", carried, re.IGNORECASE):
        on.append(k)
        if sid not in prev.citations:
            return _PRONOUN.format(lead=_lead(pronoun["p"]), sid=sid)
    return None


def _later(
    before: Finding,
    claim: DraftClaim,
    finding: Finding,
    dates: Mapping[str, str | None],
    on: list[int],
    k: int,
) -> str | None:
    """The problem of a sentence that opens `Decades later,` (number `k`), if any."""
    m = LATER.match(strip_markers(claim.text))
    if m is None or finding.source_id is None:
        return None
    on.append(k)
    if m["years"] is not None:  # `140 years later` for sources of 1823 and 1963 (or 1964)
        lo, hi = int(m["years"]), int(m["years"]) + 1
    else:
        lo, hi = LATER_REACH[" ".join(m["span"].lower().split())]
    then = _year(dates.get(before.source_id or ""))
    now = _year(dates.get(finding.source_id))
    if then is None or now is None or not lo <= now - then <= hi:
        return _LATER.format(lead=_lead(m.group(0)), sid=finding.source_id)
    return None


def later_years(claim: DraftClaim) -> str | None:
    """The number of a sentence that opens `140 years later,` as written, else None."""
    m = LATER.match(strip_markers(claim.text))
    return m["years"] if m is not None else None


def _year(date: str | None) -> int | None:
    return int(date[:4]) if date and date[:4].isdigit() else None


def _right_before(before: Finding, finding: Finding, text: str) -> bool:
    """The sentence before is carried by the same source, ending before this one's words
    with no more than the rest of one source sentence between them."""
    if before.span is None or before.source_id != finding.source_id or finding.span is None:
        return False
    (a0, b0), (a1, _) = before.span, finding.span
    return a0 < a1 and (b0 >= a1 or len(_SENTENCE_END.findall(text, b0, a1)) <= 1)


def _forward(
    finding: Finding,
    after: Finding | None,
    texts: Mapping[str, str],
    on: list[int],
    k: int,
) -> str | None:
    """The problem of a sentence the source's next sentence limits, if any."""
    if finding.span is None or finding.source_id is None:
        return None
    text = texts[finding.source_id]
    end = _SENTENCE_END.search(text, finding.span[1] - 1)
    start = end.end() if end else len(text)
    rest = text[start:].lstrip()
    limit = LIMITS.match(rest)
    if limit is None:
        return None
    at = len(text) - len(rest)
    stop = _SENTENCE_END.search(text, at)
    limit_end = stop.end() if stop else len(text)
    if len(text[at:limit_end].split()) > LIMIT_WORDS:
        return None  # a sentence of its own (`Not until that is done can we rest.`)
    if _starts_in(after, finding.source_id, at, limit_end):
        on.append(k + 2)  # the next sentence of the answer carries the limit
        return None
    return _LIMITED.format(sid=finding.source_id, lead=_lead(limit.group(0)))


def _starts_in(finding: Finding | None, source_id: str, a: int, b: int) -> bool:
    """`finding` places its sentence in `source_id`, starting in text[a:b]."""
    return (
        finding is not None
        and finding.source_id == source_id
        and finding.span is not None
        and a <= finding.span[0] < b
    )


def _lead(words: str) -> str:
    return " ".join(words.split()).strip(" ,;:—–-").capitalize()
