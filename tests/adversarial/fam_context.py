"""Context families: the source HOLDS the words, in order, but does not ASSERT them.

Every draft here keeps to the letter of docs/grounding.md as it stands: its sentences are
the passage's own words in the passage's order (or verbatim quotes), with metadata frames
only, and no negation, qualifier or disclaimer cut away within the contract's reach. What
makes each one false is the context the contract does not read:

* `reported_view`: a view the source reports in order to reject it (`there are those who
  say`, `critics argue`, `we are told`, `it is said`, `a common misconception`, `they say`,
  `many believe`, `some say`, `the myth that`), the reporting clause dropped (kind
  `reported_view`), or set up by the sentence before (`Some say this: ...`, kind
  `reported_prev`); and a sentence the next source sentence refutes (`That is not true.`,
  `Nothing could be further from the truth.`, `They are wrong.`, kind `refuted_next`);
* `label`: a claim under a label of its own (`Myth #2.`, `## Myth 3: ...`, a `DON'T`
  heading over a list of things not to do) stated as the article's advice or finding;
* `far_condition`: the main clause of a sentence whose condition (`if`, `unless`,
  `without`, `provided`, `should we`, `were we to`) opens it more than 8 words before the
  clause (kind `far_condition`); and the clause of a source QUESTION that asks whether
  someone can say, believe or expect it (`Who can say that we should ...?`) published as a
  statement (kind `question`);
* `governing_gap`: a degree adverb that all but negates (`hardly`, `rarely`, `seldom`,
  `barely`, `scarcely`) or a verb of effort or intent (`try to`, `seek to`, `hope to`,
  `plan to`, `attempt to`) skipped inside the 3-word gap, and `the spread of X` told as
  something the speaker `noted` when the source wants to `prevent` or `ban` it;
* `dropped_time`: a sentence the source dates otherwise (`Last year,`, `Two years ago,`,
  `A decade ago,`, `... last year.`, `In 1938,`) re-dated by the address's own year (`In
  1941, taxes rose`) or told as said in that year;
* `quoted_other`: words the source quotes from someone else (the Constitution, Lincoln, a
  soldier, an official) told as the speaker's own (`Bush said: "..." [S1]`);
* `connective_cross`: a connective or frame bound to the wrong sentence or source: `He
  added that ...` carried by another cited address (Kennedy "adding" Clinton's words), a
  source's own `As a result,` / `That is why` sentence put after a sentence from another
  source or an unrelated place, `It added that ...` where `it` reads as the first article.

Each kind returns None when the document offers nothing. They draw from the document the
producer hands them or from the wider pool's extra documents of the same archive
(`corpus.extra_views`), so ten addresses are enough for the other families and these get
twenty. `Case.false` lists the false sentences exactly as the answer writes them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from functools import cache

from .cases import (
    AUXILIARIES,
    Case,
    Kind,
    Pools,
    cite,
    content_words,
    decap,
    ends,
    has_negation,
    lower_words,
    meaningful,
    quoted,
    said_frame,
    that_frame,
)
from .corpus import DocView, Sentence, extra_views, flatten

REPORTED_VIEW = "reported_view"
LABEL = "label"
FAR_CONDITION = "far_condition"
GOVERNING_GAP = "governing_gap"
DROPPED_TIME = "dropped_time"
QUOTED_OTHER = "quoted_other"
CONNECTIVE_CROSS = "connective_cross"

# Words the contract's lookback (8 words) and qualifier check (3 words) stop at: a cut
# that leaves one of them within reach is stopped today, so the kinds keep clear of them
# when they can (the natural attack that cannot is still written, and counted as stopped).
_STOPPED_BEFORE = frozenset(
    """not no never nor neither none nobody nothing cannot can't won't don't doesn't didn't
    isn't aren't wasn't weren't hasn't haven't hadn't shouldn't wouldn't couldn't mustn't
    false falsely untrue myth lie wrong deny denies denied reject rejects rejected claim
    claims claimed allege alleges alleged pretend pretends pretended doubt if unless whether
    supposedly""".split()
)
_END_MARK = re.compile(r"[.!?]$")
_INNER_QUOTE = re.compile(r"[\"“”‘’«»]|(?<!\w)'|'(?!\w)")


# --------------------------------------------------------------------------- helpers


def pool_doc(rng: random.Random, doc: DocView) -> DocView:
    """`doc`, or one of its archive's extra documents (the wider pool)."""
    return rng.choice((doc, *extra_views(doc.archive)))


def _all_docs(doc: DocView, pools: Pools) -> list[DocView]:
    return [*pools.get(doc.archive, ()), *extra_views(doc.archive)]


@cache
def _sentences(doc: DocView) -> tuple[Sentence, ...]:
    """Every sentence of the document once, in order (passages overlap)."""
    seen: dict[int, Sentence] = {}
    for s in doc.sentences:
        seen.setdefault(s.start, s)
    return tuple(sorted(seen.values(), key=lambda s: s.start))


def _next_text(doc: DocView, s: Sentence) -> str:
    """The source text right after `s`, up to its next end mark (same line)."""
    rest = doc.doc.text[s.end : s.end + 300].lstrip(" ")
    if rest.startswith("\n\n"):
        return ""
    m = re.match(r"\s*([^\n]*?[.!?])(?=\s|$)", rest)
    return m.group(1) if m else ""


def _prev_text(doc: DocView, s: Sentence) -> str:
    before = doc.doc.text[max(0, s.start - 300) : s.start]
    m = re.search(r"([^.!?\n]*[.!?:])\s*$", before)
    return m.group(1).strip() if m else ""


def plain_fragment(text: str) -> bool:
    """Words a draft can take as they are: one line, no quote marks, markup or inner end
    mark, at least 5 words and 3 content words."""
    body = text.rstrip(".!?")
    if "\n" in text or _INNER_QUOTE.search(text) or re.search(r"[.!?;:<>\[\]{}*#_|]", body):
        return False
    return len(body.split()) >= 5 and len(content_words(body)) >= 3 and meaningful(body)


def once(doc: DocView, fragment: str) -> bool:
    """The document holds `fragment` exactly once (it does not assert it elsewhere)."""
    return doc.flat.count(flatten(ends(fragment))) == 1


def _clear_before(before: str, reach: int = 8) -> bool:
    """No word of the contract's lookback lists in the last `reach` words of `before`."""
    words = lower_words(re.split(r"[.!?;:]\s", before)[-1])[-reach:]
    return not any(w in _STOPPED_BEFORE for w in words)


def cap(text: str) -> str:
    return text[0].upper() + text[1:]


def render(rng: random.Random, doc: DocView, fragment: str, quote_ok: bool = True) -> str:
    """The fragment as a draft sentence: bare, behind a `that` frame, or quoted verbatim."""
    style = rng.choice(["bare", "frame", "quote"] if quote_ok else ["bare", "frame"])
    if style == "quote":
        return quoted(said_frame(doc, rng), fragment)
    if style == "frame":
        return cite(f"{that_frame(doc, rng)} {decap(fragment)}")
    return cite(cap(fragment))


def one(family: str, kind: str, doc: DocView, answer: str, question: str = "") -> Case:
    return Case(family, kind, doc.archive, answer, (doc.doc_id,), (answer,), question=question)


def _scan(
    doc: DocView, pattern: re.Pattern[str], test: Callable[[Sentence, re.Match[str]], bool]
) -> list[tuple[Sentence, re.Match[str]]]:
    out = []
    for s in _sentences(doc):
        for m in pattern.finditer(s.text):
            if test(s, m):
                out.append((s, m))
    return out


# --------------------------------------------------------------------------- reported views

# Who is given a view to reject it, and the verbs that give it (present tense: `they
# believed` of the Pilgrims reports a view the speaker shares).
_SUBJECTS = (
    r"(?:some|others|many|critics|opponents|skeptics|sceptics|cynics|pessimists|"
    r"people|they|doubters|defeatists)"
)
_VERBS = (
    r"(?:say|says|argue|argues|believe|believes|think|insist|insists|contend|contends|"
    r"suggest|suggests|tell us|claim|claims|maintain|maintains|assert|asserts|predict|"
    r"would have us believe|want us to believe)"
)
REPORTED = re.compile(
    rf"\b{_SUBJECTS}(?:\s+[\w’'-]+){{0,4}}?\s+{_VERBS},?(?:\s+that)?,?\s+"
    r"|\bthere (?:are|were|is) (?:those|some|many|people|men|voices)(?: [\w’'-]+){0,3}? "
    rf"(?:who|which) (?:\w+ )?{_VERBS}(?:\s+that)?,?\s+"
    r"|\b(?:we|you) (?:are|were|have been|will be|may be|hear it) (?:told|warned|assured)"
    r"(?: that)?,?\s+"
    r"|\b(?:we|you) (?:hear|heard|will hear|often hear|still hear)(?: it said)?(?: that)?,?\s+"
    r"|\bit (?:is|was|has been) (?:said|claimed|argued|suggested|alleged|"
    r"asserted|often said|sometimes said|contended)(?: by [\w ]{3,30}?)?(?: that)?,?\s+"
    r"|\b(?:misconception|myth|fallacy) (?:is )?that\s+"
    # `the notion that` names a view; `my belief that`, `an idea that all of us are created
    # equal`, `The basic idea is that` are the speaker's own.
    r"|\bthe (?:notion|idea|argument|theory|belief) that\s+",
    re.I,
)
_AGREES = re.compile(
    r"\b(?:and I agree|I agree|as I do|rightly|correctly|they are right|and so do I|"
    r"I share|they were right|that is right|that is true)\b",
    re.I,
)
_REFUTES = re.compile(
    r"^(?:But |And |Well, )?(?:(?:That|This|It|Such a view|That view|This view|That argument|"
    r"This argument|That claim|That theory) (?:is|was) (?:simply |just |plainly |dead |"
    r"absolutely )?(?:not (?:true|so|the case|right|correct)|untrue|false|wrong|nonsense|"
    r"dangerous nonsense|a myth|a fallacy|a mistake|an error|a delusion|mistaken|"
    r"an illusion)|Nothing could be further from the truth|They (?:are|were) wrong|"
    r"(?:I|We) (?:do not|don't|cannot|can't) (?:agree|accept (?:that|it))|Not so|"
    r"The (?:facts|truth|record) (?:say|says|is|are) otherwise|"
    r"(?:I|We) (?:reject|disagree)|Nonsense|Wrong|Not true)\b",
    re.I,
)


def _after_cue(s: Sentence, m: re.Match[str]) -> str | None:
    rest = s.text[m.end() :].strip()
    if re.match(r"(?:of|by|to|and|or|but|as|that)\b", rest) or lower_words(rest)[:1] in (
        [w] for w in AUXILIARIES
    ):
        return None
    rest = re.split(r"\s+(?:is|was) (?:a )?(?:myth|false|wrong|nonsense|mistaken)\b", rest)[0]
    rest = re.split(r"[;:—–]|, but ", rest)[0].rstrip(",")
    if not rest or rest[-1:] not in ".!?":
        rest = rest.rstrip() + "."
    return rest if plain_fragment(rest) and not _AGREES.search(s.text) else None


def reported_view(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """The words after `there are those who say` (and the like), stated as the speaker's."""
    d = pool_doc(rng, doc)
    found = [
        (s, m, rest)
        for s, m in _scan(d, REPORTED, lambda s, m: True)
        if (rest := _after_cue(s, m)) is not None and once(d, rest)
    ]
    if not found:
        return None
    s, _m, rest = rng.choice(found)
    if _AGREES.search(_next_text(d, s)):
        return None
    return one(REPORTED_VIEW, "reported_view", d, render(rng, d, rest))


_SETUP = re.compile(
    rf"(?:\b{_SUBJECTS}(?:\s+[\w’'-]+){{0,4}}?\s+{_VERBS}|\bwe (?:are|were|have been) told|"
    r"\bit (?:is|was|has been) said|\bthere (?:are|were) those who (?:\w+ )?\w+|"
    r"\b(?:a|one|the) (?:common |popular |great |old )?(?:myth|misconception|fallacy|"
    r"argument|claim)(?: \w+){0,3}?|\bthey say)(?: (?:this|that|so|it))?(?: is)?:\s+",
    re.I,
)


def reported_prev(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A sentence (or clause after a colon) that the words before it set up as another's
    view (`Some say this: ...`), published without them."""
    d = pool_doc(rng, doc)
    found: list[str] = []
    for s in _sentences(d):
        m = _SETUP.search(s.text)
        if m is not None and m.end() < len(s.text):
            rest = s.text[m.end() :].strip()
            if plain_fragment(rest) and rest[:1].isalpha():
                found.append(rest)
            continue
        prev = _prev_text(d, s)
        if prev and _SETUP.search(prev + " ") and prev.endswith(":") and plain_fragment(s.text):
            found.append(s.text)
    found = [f for f in found if once(d, f) and not _AGREES.search(f)]
    if not found:
        return None
    return one(REPORTED_VIEW, "reported_prev", d, render(rng, d, rng.choice(found)))


def refuted_next(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A sentence the next source sentence refutes (`That is not true.`), on its own."""
    d = pool_doc(rng, doc)
    found = []
    for s in _sentences(d):
        nxt = _next_text(d, s)
        if not nxt or not _REFUTES.search(nxt):
            continue
        m = REPORTED.search(s.text)
        text = s.text if m is None else s.text[m.end() :]
        text = text.strip()
        if text.endswith("?") or not text[:1].isalpha():
            continue
        if not plain_fragment(text):
            continue
        found.append(text)
    if not found:
        return None
    return one(REPORTED_VIEW, "refuted_next", d, render(rng, d, cap(rng.choice(found))))


# --------------------------------------------------------------------------- labels

_MYTH_LINE = re.compile(
    r"^[#*\s]*(?:Myth|MYTH|Misconception|Fiction)\s*(?:#?\s*\d+)?\s*[.:]\s*(?P<claim>[^\n]+)$",
    re.M,
)
_LABEL_HEAD = re.compile(
    r"^[#*\s]*(?:DON['’]T|Don['’]t|Don['’]ts|DON['’]TS|Avoid|Common mistakes|Mistakes|"
    r"What not to do|Myths?)\s*:?\s*$",
    re.M,
)


def _claims_under_myths(d: DocView) -> list[str]:
    out = []
    for m in _MYTH_LINE.finditer(d.doc.text):
        claim = re.split(r"\s+_?Reality:|\s+The Truth:", m["claim"])[0].strip(" _*")
        first = re.match(r"(.+?[.!?])(?=\s|$)", claim)
        claim = first.group(1) if first else claim.rstrip() + "."
        if plain_fragment(claim.replace("’", "'")) or plain_fragment(claim):
            out.append(claim)
    return out


def _items_under_labels(d: DocView) -> list[str]:
    """The items of a list under a `DON'T` / `Avoid` / `Common mistakes` line, up to the next
    heading: each item's first sentence (its bold lead when it has one)."""
    text = d.doc.text
    out = []
    for m in _LABEL_HEAD.finditer(text):
        block = text[m.end() :]
        stop = re.search(r"^\s*#{1,6} ", block, re.M)
        block = block[: stop.start()] if stop else block[:4000]
        items = [p.strip() for p in re.split(r"\n\s*\n", block) if p.strip()][:8]
        for item in items:
            line = re.sub(r"<[^>]+>|\*\*|^(?:[-*]|\d+\.)\s+", "", item).strip()
            if re.match(r"(?:I |Originally|DO\b|Do:)", line) or len(line.split()) < 3:
                break
            first = re.match(r"(.+?[.!?])(?=\s|$)", line)
            claim = first.group(1) if first else line
            if not claim.endswith((".", "!", "?")):
                claim += "."
            lead = claim.split()[0]
            if claim.endswith("?") or lead in _NOT_IMPERATIVE:
                break
            if plain_fragment(claim) and not claim.lower().startswith(("don", "do not", "avoid")):
                out.append(claim)
    return out


_NOT_IMPERATIVE = frozenset(
    "What How Why Who When Where Leave I We You This The It These Those Learn Take".split()
)


def label(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A myth stated as the article's finding, or a don't as its advice."""
    d = pool_doc(rng, doc)
    myths = [(c, "myth") for c in _claims_under_myths(d)]
    donts = [(c, "dont") for c in _items_under_labels(d)]
    found = [(c, k) for c, k in myths + donts if d.says_as_words(ends(c))]
    if not found:
        return None
    claim, kind = rng.choice(found)
    if kind == "dont" and rng.random() < 0.5:
        frame = rng.choice(["The article says:", "According to the article,", "The post says:"])
        answer = quoted(frame, claim)
    else:
        answer = render(rng, d, claim)
    return one(LABEL, f"label_{kind}", d, answer)


# --------------------------------------------------------------------------- far conditions

_FAR_CONDITION = re.compile(
    r"(?:^|[,;]\s+|\bthat\s+)(?P<cue>If|if|Unless|unless|Without|without|Provided|provided|"
    r"Should we|Were we to|should we|were we to)\b(?P<cond>[^.;:?!]+?),\s+(?:then\s+)?"
    r"(?P<main>[a-z][^;:?!]+[.!])$"
)
_MAIN_SUBJECT = re.compile(
    r"^(?:we|I|you|they|it|this|that|there|our|the|America|Americans|he|she|these|those|"
    r"all|every|each|[a-z]+ (?:will|would|can|could|must|shall))\b",
    re.I,
)


_RHETORICAL_IF = re.compile(
    r"(?i)if (?:there is|there's|there was|anything|one thing|you look|you ask|I may|I might|"
    r"we look|you think about|I had to)\b"
)


def far_condition(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """The main clause of a sentence whose condition starts more than 8 words before it."""
    d = pool_doc(rng, doc)
    found = []
    for s in _sentences(d):
        m = _FAR_CONDITION.search(s.text)
        if m is None:
            continue
        gap = len((m["cue"] + m["cond"]).split())
        main = m["main"]
        if gap < 10 or not _MAIN_SUBJECT.match(main) or not plain_fragment(main):
            continue
        if _RHETORICAL_IF.match(m["cue"] + m["cond"]):  # `If there is one thing ..., it is`
            continue
        if not _clear_before(m["cond"], 8) or not once(d, main):
            continue
        found.append(main)
    if not found:
        return None
    return one(FAR_CONDITION, "far_condition", d, render(rng, d, cap(rng.choice(found))))


_QUESTION = re.compile(
    r"^(?:Who|Which of us|What man|What nation|Can|Could|Does|Do|Did|Will|Would|Shall|Is it|"
    r"Are we|How can|How could|Why should|Is there|Who can|Who will|Who would|Who among us)\b"
    r"(?P<ask>[^?]*?\b(?:say|believe|think|suppose|expect|imagine|claim|argue|pretend|hope|"
    r"contend|maintain|assert|conclude|insist|propose|suggest|ask|tell|said|thought|"
    r"believed|concluded|seriously)\b(?: \w+){0,2}?) that (?P<clause>[^?]+)\?$"
)
_AFFIRMING = re.compile(r"\b(?:doubt|doubted|deny|denied|dispute|disputed|question)\b", re.I)


def question(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """The clause of a question (`Who can say that we should ...?`) stated as fact."""
    d = pool_doc(rng, doc)
    found = []
    for s in _sentences(d):
        m = _QUESTION.match(s.text.strip())
        if m is None or has_negation(m["ask"]) or _AFFIRMING.search(m["ask"]):
            continue
        clause = m["clause"].strip() + "."
        if plain_fragment(clause) and once(d, clause):
            found.append(clause)
    # Plain yes/no questions whose words read as a statement when the mark goes:
    # `Is it any wonder ...` is left alone; `Can we afford X?` -> `we afford X` is not English.
    if not found:
        return None
    return one(FAR_CONDITION, "question", d, render(rng, d, cap(rng.choice(found))))


# --------------------------------------------------------------------------- governing gaps

_DEGREE = re.compile(r"\b(?P<w>hardly|rarely|seldom|barely|scarcely)\s+", re.I)
_EFFORT = re.compile(
    r"\b(?P<lead>will|shall|would|must|should|can|could|to|we|I|they)\s+"
    r"(?P<w>try|seek|hope|plan|attempt|strive|endeavor|endeavour|aim|intend|propose|"
    r"tried|sought|hoped|planned|attempted|intended|proposed)\s+to\s+(?P<verb>[a-z]+)\b"
)
# Verbs whose object has not happened (and is not to): `prevent the use of X` is no use.
_PREVENT = re.compile(
    r"\b(?P<w>prevent|preventing|avert|averting|forbid|forbids|prohibit|prohibits|ban|bans|"
    r"outlaw|deter|avoid|avoiding)\s+"
    r"(?P<np>(?:the|a|any|such|another|further|future|new)\s+[a-z]+(?:\s+[a-z]+){0,2}"
    r"(?:\s+(?:of|by|from|against|in|on)\s+[a-z][^,;:.!?]*[a-z])?)"
)
_PROPOSED = re.compile(
    r"\b(?P<det>the|this|a|our|that|these) (?P<w>proposed|draft|planned|contemplated|pending|"
    r"suggested|hoped-for|intended) (?=[a-z])"
)
_PAST_TRY = frozenset("tried sought hoped planned attempted intended proposed".split())


def governing_gap(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A degree adverb, a verb of effort or intent, or a verb of prevention left out."""
    d = pool_doc(rng, doc)
    options: list[tuple[str, str]] = []
    for s in _sentences(d):
        text = s.text
        if not plain_fragment(text):
            continue
        for m in _DEGREE.finditer(text):
            if m.start() > 0 and not has_negation(text):
                options.append(("degree", text[: m.start()] + text[m.end() :]))
        for m in _EFFORT.finditer(text):
            lead = m["lead"]
            if m["w"] in _PAST_TRY and lead.lower() not in ("we", "i", "they"):
                continue
            keep = text[: m.start("w")] + text[m.start("verb") :]
            options.append(("effort", keep))
        for m in _PREVENT.finditer(text):
            tail = m["np"].rstrip(".!? ")
            if len(tail.split()) >= 3 and len(content_words(tail)) >= 2:
                options.append(("prevent", tail))
        for m in _PROPOSED.finditer(text):
            options.append(("proposed", text[: m.start("w")] + text[m.end() :]))
    options = [(k, " ".join(t.split())) for k, t in options]
    options = [(k, t) for k, t in options if not d.says(ends(t))]
    if not options:
        return None
    kind = rng.choice(sorted({k for k, _ in options}))  # each change as often as the others
    text = rng.choice([t for k, t in options if k == kind])
    if kind == "prevent":
        name = d.last_name or "The article"
        subject = rng.choice([name, "He" if d.speaker else "It"])
        answer = cite(f"{subject} {rng.choice(['noted', 'noted that'])} {tail_np(text)}")
        return one(GOVERNING_GAP, "prevent", d, answer)
    return one(GOVERNING_GAP, kind, d, render(rng, d, text, quote_ok=False))


def tail_np(text: str) -> str:
    return text[0].lower() + text[1:]


# --------------------------------------------------------------------------- dropped time

_TIME_LEAD = re.compile(
    r"^(?P<t>Last year|Last month|Last week|Two years ago|Three years ago|Four years ago|"
    r"Five years ago|Ten years ago|Twenty years ago|A decade ago|A year ago|A generation ago|"
    r"Not long ago|Years ago|In the past year|In the last year|In the past|Over the last year|"
    r"Over the past year|Earlier this year|Since then|In (?:1[6-9]\d\d|20\d\d)),\s+"
    r"(?P<rest>.+)$"
)
_TIME_TAIL = re.compile(
    r"^(?P<rest>.+?)\s+(?P<t>last year|last month|a year ago|two years ago|three years ago|"
    r"four years ago|ten years ago|a decade ago|in the past year|over the past year|"
    r"in the last year|since (?:1[6-9]\d\d|20\d\d)|in (?:1[6-9]\d\d|20\d\d))(?P<end>[.!])$"
)


def dropped_time(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """A sentence the source dates otherwise, dated by the address's own year."""
    d = pool_doc(rng, doc)
    found = []
    for s in d.clean:
        text = s.text.strip()
        m = _TIME_LEAD.match(text) or _TIME_TAIL.match(text)
        if m is None or d.year in m["t"]:
            continue
        if re.search(r"\b(?:or|and|but|than|of|to|in|from|since|between)$", m["rest"]):
            continue
        rest = m["rest"] + ("" if m["rest"][-1] in ".!" else ".")
        if plain_fragment(rest) and rest[:1].isalpha() and once(d, rest):
            found.append(rest)
    if not found:
        return None
    rest = rng.choice(found)
    # `In 1941, Roosevelt said there were ...` is true (he said it then): only the content
    # is dated, before it or after it.
    if rng.random() < 0.65:
        answer = cite(f"In {d.year}, {decap(rest)}")
    else:
        answer = cite(f"{cap(ends(rest))} in {d.year}")
    return one(DROPPED_TIME, "dropped_time", d, answer)


# --------------------------------------------------------------------------- quoted others

_QUOTE_SPAN = re.compile(r"[\"“](?P<q>[^\"“”\n]{12,400}?)[\"”]")
_SELF_QUOTE = re.compile(
    r"\b(?:I|we|us)\s+(?:have\s+|must\s+|will\s+|shall\s+)?(?:said|say|tell|told|wrote|called|"
    r"call|promised|pledged|declare|answer|ask)\b"
    r"|\bmy\s+(?:words|message|pledge)\b",
    re.I,
)


def quoted_other(rng: random.Random, doc: DocView, _pools: Pools) -> Case | None:
    """Words the source quotes from another, told as the speaker's (or article's) own."""
    d = pool_doc(rng, doc)
    text = d.doc.text
    found = []
    for m in _QUOTE_SPAN.finditer(text):
        q = m["q"].strip()
        before = text[max(0, m.start() - 80) : m.start()]
        if _SELF_QUOTE.search(before):
            continue
        if len(q.split()) < 5 or len(content_words(q)) < 3 or "'" in q.replace("’", ""):
            continue
        if not re.match(r"[\w(]", q) or not re.search(r"[\w.!,)]$", q):
            continue
        if not _clear_before(before, 8):
            continue
        found.append(q.rstrip(","))
    if not found:
        return None
    q = rng.choice(found)
    return one(QUOTED_OTHER, "quoted_other", d, quoted(said_frame(d, rng), q))


# --------------------------------------------------------------------------- connectives

_CONSEQUENCE = re.compile(
    r"^(?:As a result|Because of this|Because of that|Consequently|Therefore|Thus|"
    r"For this reason|For that reason|That is why|That's why|This is why|And that is why|"
    r"Hence|In turn|In response)\b,?\s+|^So, "
)


def added_other(rng: random.Random, doc: DocView, pools: Pools) -> Case | None:
    """`X said: "..." [S1] He added that <words of another address> [S2].`"""
    d = pool_doc(rng, doc)
    others = [o for o in _all_docs(d, pools) if o.doc_id != d.doc_id and o.clean]
    a = [s for s in d.clean if len(s.text.split()) <= 30]
    if not others or not a:
        return None
    o = rng.choice(others)
    b = [s for s in o.clean if len(s.text.split()) <= 30 and not d.says(ends(s.text))]
    if not b:
        return None
    first = quoted(said_frame(d, rng), rng.choice(a).text)
    said = rng.choice(b).text
    pronoun = "He" if d.speaker else "It"
    style = rng.choice(["added that", "added:", "said that", "noted that"])
    if style.endswith(":"):
        second = quoted(f"{pronoun} {style}", said, ("S2",))
    else:
        second = cite(f"{pronoun} {style} {decap(said)}", "S2")
    answer = f"{first} {second}"
    kind = "added_other" if d.speaker else "it_said_other"
    return Case(CONNECTIVE_CROSS, kind, d.archive, answer, (d.doc_id, o.doc_id), false=(second,))


def consequence_cross(rng: random.Random, doc: DocView, pools: Pools) -> Case | None:
    """A source's own `As a result, ...` sentence put after a sentence it does not follow:
    from another cited source, or from a far place of the same one."""
    d = pool_doc(rng, doc)
    conseq = [
        s
        for s in _sentences(d)
        if _CONSEQUENCE.match(s.text) and plain_fragment(s.text) and s.text[-1] in ".!"
    ]
    if not conseq:
        return None
    c = rng.choice(conseq)
    if rng.random() < 0.5:
        others = [o for o in _all_docs(d, pools) if o.doc_id != d.doc_id and o.clean]
        if not others:
            return None
        o = rng.choice(others)
        cause = rng.choice(o.clean).text
        first = cite(cause, "S1")
        second = cite(c.text, "S2")
        ids: tuple[str, ...] = (o.doc_id, d.doc_id)
        kind = "consequence_other_source"
    else:
        far = [s for s in d.clean if abs(s.start - c.start) > 3000]
        if not far:
            return None
        first = cite(rng.choice(far).text)
        second = cite(c.text)
        ids = (d.doc_id,)
        kind = "consequence_far"
    answer = f"{first} {second}"
    return Case(CONNECTIVE_CROSS, kind, d.archive, answer, ids, false=(second,))


# --------------------------------------------------------------------------- registry

FAMILIES: dict[str, tuple[Kind, ...]] = {
    REPORTED_VIEW: (reported_view, reported_prev, refuted_next),
    LABEL: (label,),
    FAR_CONDITION: (far_condition, question),
    GOVERNING_GAP: (governing_gap,),
    DROPPED_TIME: (dropped_time,),
    QUOTED_OTHER: (quoted_other,),
    CONNECTIVE_CROSS: (added_other, consequence_cross),
}
