"""A follow-up question read against the earlier questions of its conversation.

Asked under "What did Franklin D. Roosevelt say about freedom of speech in 1941?", the
follow-up "What did he say about freedom from fear?" is about Roosevelt: planned as typed it
names nobody and searches the whole archive. `resolve` rewrites such a follow-up into the
self-contained question a reader would have typed, by rules, before anything is planned:

* a person pronoun (he, him, his, she, her, they, them, their ...) in a follow-up that names
  nobody is the person named most recently (the speaker: the first person a question
  names), written as the archive knows them when the earlier question's period picked one
  of several people with that name ("Roosevelt" in 1941 is Franklin D. Roosevelt); "they"
  with nobody named before is the earlier question's last proper noun (an agency, a
  program), else its topic;
* "it"/"its" is the earlier question's topic: what it asked "about", else the last proper
  noun it names ("the Digital Analytics Program");
* an elided subject ("What about 1962?", "And in his second term?", "How about Medicare?",
  "What about Reagan?") takes the earlier question and changes only what the follow-up
  gives: a period or a phrase such as "in his second term" replaces the earlier question's
  own period; a new person replaces its person; a new topic is asked of its person;
* a period is kept from an earlier question only when the follow-up asks for it ("that
  year", "in the same speech", a final "then"); otherwise a follow-up has no period but
  its own (a person's own years still narrow the search, through the planner).

A follow-up that names its own subject (a full question about someone or something else)
is left alone. The earlier questions are resolved first, oldest first, so a chain of
follow-ups keeps its subject. What code cannot place stays as the reader wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...textutil import STOPWORDS
from .names import NameMention

Span = tuple[int, int]

_PERSON = re.compile(r"\b(he|him|his|she|her|hers|they|them|their|theirs)\b", re.I)
_POSSESSIVE = frozenset({"his", "hers", "their", "theirs"})
_PLURAL = frozenset({"they", "them", "their", "theirs"})
_IT = re.compile(r"\b(it|its)\b(?!['’])", re.I)
_NOT_IT = re.compile(r"it\s+(?:true|possible|likely|clear|that|take|takes|took|mean|means)\b", re.I)
_SAME_TIME = re.compile(
    r"(?:\b(?:in|during|at|from|for)\s+)?\b(?:that|the\s+same)\s+"
    r"(?:year|time|speech|address|message|post|article|month)\b"
    r"|(?<!since\s)(?<!until\s)(?<!from\s)\bthen(?=\s*[?.!]*\s*$)",
    re.I,
)
_ELIDED = re.compile(
    r"^\s*(?:and\s+|also\s+|so\s+)?(?:(?:what|how)\s+about|what\s+of|anything\s+(?:about|on)"
    r"|same\s+(?:question\s+)?for)\s+(?P<rest>.+?)\s*[?.!]*\s*$",
    re.I,
)
_AND = re.compile(r"^\s*(?:and|also)\s*,?\s+(?P<rest>.+?)\s*[?.!]*\s*$", re.I)
_ASKS = re.compile(
    r"^(?:what|who|whom|whose|which|when|where|why|how|did|does|do|was|were|is|are|has|have|"
    r"had|can|could|would|will|should)\b",
    re.I,
)
_MODIFIER = re.compile(
    r"^(?:in|during|at|before|after|since|from|until|through|between|by|toward|towards)\b", re.I
)
_ORDINAL_ALONE = re.compile(r"\b(first|earliest|last|final|latest)(?:\s+one)?\s*$", re.I)
_TOPIC_CUE = re.compile(r"^(?:about|on|regarding|concerning)\s+", re.I)
_LEAD = re.compile(r"(?:\b(?:in|during|of|from|for|on|at)\s+)?(?:\b(?:his|her|their)\s+)?$", re.I)
_ABOUT = re.compile(r"\b(?:about|on|regarding|concerning)\s+", re.I)
_PROPER = re.compile(
    r"(?:\bthe\s+)?\b(?:[A-Z][\w.-]*|[a-z0-9]+[A-Z][\w.-]*)"
    r"(?:\s+(?:(?:of|for|and|on|the)\s+)?(?:[A-Z][\w.-]*|[a-z0-9]+[A-Z][\w.-]*))*"
)
_WORD = re.compile(r"[A-Za-z0-9]+")


@dataclass(frozen=True)
class Reading:
    """What the planner reads in one question (`OfflinePlanner.read`).

    `names`: the people it names, in order; `speaker`: how to name the first of them
    unambiguously; `periods`: the spans of its time expressions and of a "first"/"last"
    address bound to a person.
    """

    names: tuple[NameMention, ...] = ()
    speaker: str | None = None
    periods: tuple[Span, ...] = ()


@dataclass(frozen=True)
class Resolution:
    """A question as the planner understands it, and what it took from which earlier one."""

    question: str
    source: str | None = None  # the earlier question (as asked) it was resolved against
    subject: str | None = None  # the person or topic it took from there

    @property
    def resolved(self) -> bool:
        return self.source is not None


@dataclass(frozen=True)
class _Turn:
    """An earlier question: as asked, as understood, and read."""

    asked: str
    text: str
    reading: Reading


Read = Callable[[str], Reading]


def resolve(question: str, earlier: Sequence[str], read: Read) -> Resolution:
    """`question` made self-contained against `earlier` (oldest first); see the module doc."""
    turns: list[_Turn] = []
    for asked in earlier:
        text = _resolve_one(asked.strip(), turns, read).question
        turns.append(_Turn(asked.strip(), text, read(text)))
    return _resolve_one(question.strip(), turns, read)


def _resolve_one(question: str, turns: Sequence[_Turn], read: Read) -> Resolution:
    if not turns or not question:
        return Resolution(question)
    reading = read(question)
    elided = _ELIDED.match(question) or _AND.match(question)
    rest = elided.group("rest") if elided else None
    if rest is not None and _ASKS.match(rest):  # "And what did he say about Cuba?"
        question, rest = _capitalised(rest.rstrip("?.! ")) + "?", None
        reading = read(question)
    if rest is None and _only_period(question, reading):
        rest = question.rstrip("?.! ")
    if rest is not None:
        done = _elided(_ORDINAL_ALONE.sub(r"\1 address", rest), turns[-1], read)
        if done is not None:
            return done
    return _substitute(question, reading, turns)


# --------------------------------------------------------------------------- elided subjects


def _elided(rest: str, before: _Turn, read: Read) -> Resolution | None:
    """ "What about X?": the earlier question with X in place of its period, person or topic."""
    reading = read(rest)
    outside = _remove(rest, [(n.start, n.end) for n in reading.names] + list(reading.periods))
    words = [w for w in _WORD.findall(outside) if w.lower() not in STOPWORDS]
    ante, ante_reading = before.text, before.reading
    period = _period_phrase(rest, reading) if reading.periods else ""
    if reading.names and not words:  # "What about Reagan (in 1982)?"
        if not ante_reading.names:
            return None
        first = ante_reading.names[0]
        swapped = ante[: first.start] + reading.names[0].text + ante[first.end :]
        text = _with_period(_without_periods(swapped, read(swapped).periods), period)
        return Resolution(text, before.asked, topic_of(ante, ante_reading) or None)
    if not words or _MODIFIER.match(rest):  # "What about (in) 1962?", "And in his second term?"
        phrase = period if not words else " ".join(rest.split())
        text = _with_period(_without_periods(ante, ante_reading.periods), phrase)
        return Resolution(text, before.asked, _subject_of(ante, ante_reading))
    people = _people(before) if ante_reading.names else None
    if reading.names or people is None:  # a question of its own
        return None
    topic = " ".join(_TOPIC_CUE.sub("", _remove(rest, list(reading.periods))).split())
    tail = f" {period}" if period else ""
    return Resolution(f"What did {people} say about {topic}{tail}?", before.asked, people)


def _only_period(question: str, reading: Reading) -> bool:
    """True for a follow-up that is just a period: "In 1962?", "1941?"."""
    if not reading.periods or reading.names:
        return False
    outside = _remove(question, list(reading.periods))
    return not [w for w in _WORD.findall(outside) if w.lower() not in STOPWORDS]


def _phrase(text: str, span: Span) -> str:
    """The period at `span` of `text` as a phrase, with the preposition (and "his") before
    it: "in 1962", "in his last address", "before 1900"; "in" added when there is none."""
    a, b = span
    lead = _LEAD.search(text[:a])
    start = lead.start() if lead and lead.group(0).strip() else a
    phrase = " ".join(text[start:b].split())
    return phrase if _MODIFIER.match(phrase) else f"in {phrase}"


def _period_phrase(rest: str, reading: Reading) -> str:
    """The follow-up's periods, from the first to the last, as one phrase."""
    return _phrase(rest, (min(a for a, _ in reading.periods), max(b for _, b in reading.periods)))


def _without_periods(text: str, periods: Sequence[Span]) -> str:
    """`text` with its periods removed, each with the preposition (and "his") before it."""
    out = text
    for a, b in sorted(periods, reverse=True):
        lead = _LEAD.search(out[:a])
        start = lead.start() if lead and lead.group(0).strip() else a
        out = out[:start] + " " + out[b:]
    out = re.sub(r"\s+([?.!,;])", r"\1", " ".join(out.split()))
    return _capitalised(re.sub(r"^[,;\s]+|,(?=,)", "", out))


def _with_period(text: str, phrase: str) -> str:
    """`text` with `phrase` before its final question mark."""
    body = text.rstrip().rstrip("?.!").rstrip()
    if _MODIFIER.match(phrase):  # "In 1963?" asked alone: "... in 1963?"
        phrase = phrase[:1].lower() + phrase[1:]
    return f"{body} {phrase}?" if phrase else f"{body}?"


# --------------------------------------------------------------------------- pronouns


def _substitute(question: str, reading: Reading, turns: Sequence[_Turn]) -> Resolution:
    """Pronouns and "that year" filled in from the earlier questions; see the module doc."""
    text, source, subject = question, None, None
    pronoun = None if reading.names else _PERSON.search(text)
    found = _person_for(pronoun.group(1).lower(), turns) if pronoun else None
    if pronoun is not None and found is not None:
        turn, name = found
        form = f"{name}'s" if _is_possessive(text, pronoun) else name
        text = text[: pronoun.start()] + form + text[pronoun.end() :]
        source, subject = turn.asked, name
    it = _IT.search(text)
    topic_turn = next((t for t in reversed(turns) if topic_of(t.text, t.reading)), None)
    if it is not None and topic_turn is not None and not _NOT_IT.match(text[it.start() :]):
        topic = topic_of(topic_turn.text, topic_turn.reading)
        form = f"{topic}'s" if it.group(1).lower() == "its" else topic
        text = text[: it.start()] + form + text[it.end() :]
        source, subject = source or topic_turn.asked, subject or topic
    same = _SAME_TIME.search(text)
    anchor = next((t for t in turns if t.asked == source), turns[-1])
    if same is not None and anchor.reading.periods:
        period = _phrase(anchor.text, anchor.reading.periods[0])
        text = text[: same.start()].rstrip() + " " + period + text[same.end() :]
        source, subject = source or anchor.asked, subject or period
    if source is None:
        return Resolution(question)
    return Resolution(_capitalised(" ".join(text.split())), source, subject)


def _person_for(word: str, turns: Sequence[_Turn]) -> tuple[_Turn, str] | None:
    """The earlier question and the name a person pronoun stands for: the speaker of the
    latest question naming someone (all its people for "they"); for "they" with nobody
    named before, the latest topic (an agency, a program)."""
    plural = word in _PLURAL
    for turn in reversed(turns):
        if turn.reading.names:
            name = _people(turn) if plural else turn.reading.speaker
            return (turn, name) if name else None
    if plural:
        for turn in reversed(turns):
            agent = _agent_of(turn.text, turn.reading)
            if agent:
                return turn, agent
    return None


def _people(turn: _Turn) -> str | None:
    """All the people an earlier question names ("Washington and Jefferson"), or its
    speaker as the archive knows them when it names one."""
    names = turn.reading.names
    if len(names) > 1:
        return " and ".join(n.text for n in names)
    return turn.reading.speaker


def _is_possessive(text: str, m: re.Match[str]) -> bool:
    word = m.group(1).lower()
    if word in _POSSESSIVE:
        return True
    if word != "her":
        return False
    after = _WORD.match(text[m.end() :].lstrip())
    return after is not None and after.group(0).lower() not in STOPWORDS


# --------------------------------------------------------------------------- topics


def topic_of(text: str, reading: Reading) -> str:
    """What `text` asks about: the words after "about"/"on" (up to a period or the end),
    else the last proper noun that is no person; "" when there is neither."""
    return _about(text, reading) or _proper(text, reading)


def _agent_of(text: str, reading: Reading) -> str:
    """Who "they" may be when nobody is named: the last proper noun that is no person (an
    agency, a program), else the topic."""
    return _proper(text, reading) or _about(text, reading)


def _taken(reading: Reading) -> list[Span]:
    return [(n.start, n.end) for n in reading.names] + list(reading.periods)


def _about(text: str, reading: Reading) -> str:
    about = list(_ABOUT.finditer(text))
    if not about:
        return ""
    start = about[-1].end()
    stops = [a for a, _ in _taken(reading) if a >= start] + [len(text)]
    phrase = re.split(r"[?!,;]|\.(?=\s|$)", text[start : min(stops)])[0]
    phrase = re.sub(r"\s+(?:in|during|at|from|before|after|since|by)\s*$", "", phrase.strip())
    return _drop_his(phrase) if phrase else ""


def _proper(text: str, reading: Reading) -> str:
    taken = _taken(reading)
    proper = [
        m
        for m in _PROPER.finditer(text)
        if m.start() > 0
        and not any(a < m.end() and m.start() < b for a, b in taken)
        and not _ASKS.match(m.group(0))
    ]
    return proper[-1].group(0).strip() if proper else ""


def _subject_of(text: str, reading: Reading) -> str | None:
    """The subject an elided follow-up keeps: the earlier question's person, else topic."""
    return reading.speaker or topic_of(text, reading) or None


def _drop_his(phrase: str) -> str:
    return re.sub(r"^(?:his|her|their)\s+", "the ", phrase.strip(), flags=re.I)


def _remove(text: str, spans: Sequence[Span]) -> str:
    out = text
    for a, b in sorted(spans, reverse=True):
        out = out[:a] + " " + out[b:]
    return out


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text
