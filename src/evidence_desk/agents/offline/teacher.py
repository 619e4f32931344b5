"""The offline teacher: a lesson of a published answer from its kept claims and passages.

It reads only what the answer retained (its kept claims and its sources' passages) and
writes, in order:

* the key idea: the answer's first kept sentence, as published;
* how it works, or what happened: the answer's next kept sentences, or else the sentence
  after the key quote in its passage, quoted behind the speaker's frame;
* an example from the sources: a sentence of a cited passage that gives one ("for
  example", "such as", a number), quoted the same way;
* what the sources do not say: the questions a reader asks next (what it cost, who opposed
  it, how it turned out) that no retained passage touches, in any form of their word;
* a check question, in words its answer and passages hold, answered by a kept sentence.

Relations come from sentences of the cited passages that link two named things with one of
the relation verbs, word for word (`Congress created the Department of Energy`): subject,
verb and object stand in the passage as the relation's sentence will read.

Every sentence it writes is one the gate's own checks pass (`answerer.gate_accepts`), as
the answerer's are; the teaching review still judges each one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

from ...textutil import sentence_spans
from ...trust.checks import EvidenceSource
from ...trust.claims import strip_markers
from ...trust.teaching import (
    RELATION_FORMS,
    absent_problems,
    question_problems,
    speaker_names,
)
from ...types import Claim, Lesson, LessonBlock, Relation, RelationKind, Source
from .answerer import gate_accepts
from .compose import Voice, clean, quoted, voice

MAX_RELATIONS = 8
# What gives an example, strongest first: words that say so, then a figure.
_EXAMPLES = (
    re.compile(r"\b(?:for example|for instance|such as|in particular)\b", re.I),
    re.compile(r"\b\d[\d,.]*\b(?!\s*(?:years?|days?|months?)\b)"),
)
# What a reader asks next, in the words a passage would use for it.
NEXT_QUESTIONS = ("cost", "opposition", "vote", "result", "critics", "deadline")
_QUESTION_STOP = frozenset(
    """what which who whom whose when where why how did does do is are was were the a an of
    to in on at by for from with about and or say said says tell told""".split()
)
# A named thing: capitalised words, with "of", "the" or "and" between them.
_NAME = r"(?:[A-Z][\w'.-]*(?:\s+(?:of|the|and|for)\s+[A-Z][\w'.-]*|\s+[A-Z][\w'.-]*)*)"
_OBJECT = r"((?:the\s+|a\s+|an\s+|our\s+)?[\w'-]+(?:\s+(?!and\b|but\b|which\b|that\b)[\w'-]+){0,6})"


# Capitalised words that open a sentence or stand for the speaker, never a named thing.
_NOT_NAMES = frozenset(
    """the this that these those it its we our i ve he she they their there here his her you
    your a an in on at for and but if when while as so yet all each every some no such""".split()
)


def _relation_patterns() -> list[tuple[RelationKind, str, re.Pattern[str]]]:
    """(kind, verb, pattern) for every form of every kind but `contrasts with` (a contrast
    between two named things is the writer's reading, not a sentence's words)."""
    out: list[tuple[RelationKind, str, re.Pattern[str]]] = []
    for kind, forms in RELATION_FORMS.items():
        if kind == "contrasts with":
            continue
        for verb in forms:
            words = r"\s+".join(re.escape(w) for w in verb.split())
            pattern = re.compile(rf"(?<![\w])(?:[Tt]he\s+)?({_NAME})\s+{words}\s+{_OBJECT}")
            out.append((cast(RelationKind, kind), verb, pattern))
    return out


_PATTERNS = _relation_patterns()
# A first-person relation's object: a whole clause up to its punctuation, never one that
# opens on a preposition, a pronoun or a conjunction (whose head is elsewhere).
_OPENERS = """that to you it them their its his her this these those as at in on for with by
    from of into upon about and or but which what when where how if whether so""".split()
_CLAUSE_OBJECT = (
    rf"(?!(?:{'|'.join(_OPENERS)})\b)([\w'’-]+(?:\s+[\w'’-]+){{1,11}})(?=\s*[,.;:!?]|\s*$)"
)
# What a speaker states in the first person: `I recommend a national health program`.
_FIRST_PERSON = [
    (
        kind,
        re.compile(
            rf"(?<![\w'’])I\s+(?:(?:also|again|now|therefore|hereby)\s+)?"
            rf"{re.escape(form)}\s+{_CLAUSE_OBJECT}"
        ),
    )
    for kind, forms in RELATION_FORMS.items()
    if kind in ("proposed", "supported", "opposed", "called for")
    for form in forms
]


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z][A-Za-z'-]*", text)


class OfflineTeacher:
    """The `offline` teacher engine (see the module docstring)."""

    engine_id = "offline"

    def teach(self, question: str, claims: Sequence[Claim], sources: Sequence[Source]) -> Lesson:
        """A lesson of the answer whose kept claims are `claims`, from `sources` alone."""
        kept = [c for c in claims if c.kept]
        evidence = {s.id: EvidenceSource.from_passages(s) for s in sources}
        writer = _Writer(sources, evidence, {q.text for c in kept for q in c.quotes})
        if not kept:
            return Lesson(blocks=())
        blocks = [LessonBlock(kind="key_idea", text=kept[0].text)]
        how = " ".join(c.text for c in kept[1:3]) or writer.next_to(kept[0])
        if how:
            blocks.append(LessonBlock(kind="how", text=how))
        example = writer.example(kept)
        if example:
            blocks.append(LessonBlock(kind="example", text=example))
        absent = writer.absent(question)
        if absent:
            blocks.append(LessonBlock(kind="not_said", absent=absent))
        check = writer.check(question, kept)
        if check is not None:
            blocks.append(check)
        return Lesson(blocks=tuple(blocks), relations=tuple(writer.relations()))


class _Writer:
    def __init__(
        self, sources: Sequence[Source], evidence: dict[str, EvidenceSource], used: set[str]
    ) -> None:
        self.sources = list(sources)
        self.by_id = {s.id: s for s in sources}
        self.evidence = evidence
        self.used = set(used)

    def _first_person(
        self, source: Source, found: list[Relation], seen: set[tuple[str, str, str]]
    ) -> None:
        """The speaker's own proposals, support, opposition and calls, as relations."""
        who = self._voice(source)
        if who is None or who.name not in speaker_names(source, self.sources):
            return
        for s in self._sentences(source):
            for kind, pattern in _FIRST_PERSON:
                for m in pattern.finditer(s):
                    obj = _first_person_object(m.group(1))
                    if obj:
                        relation = Relation(
                            id="R1",
                            subject=who.name,
                            relation=kind,
                            object=obj,
                            citations=(source.id,),
                        )
                        _add(found, seen, relation)

    def _voice(self, source: Source) -> Voice | None:
        return voice(source, self.sources)

    def _quote(self, source: Source, sentence: str) -> str | None:
        """`Roosevelt also said: "..." [S1].`, when the gate's checks pass it."""
        who = self._voice(source)
        quote = clean(sentence)
        if who is None or len(quote.split()) < 5 or quote in self.used:
            return None
        text = quoted(source, who, quote, "year", True)
        if not gate_accepts(text, self.evidence):
            text = quoted(source, who, quote, "year", False)
        if not gate_accepts(text, self.evidence):
            return None
        self.used.add(quote)
        return text

    def _sentences(self, source: Source) -> list[str]:
        return [p.text[a:b] for p in source.passages for a, b in sentence_spans(p.text)]

    def next_to(self, claim: Claim) -> str:
        """The sentence after the claim's first quote in its passage, quoted."""
        if not claim.quotes or not claim.citations:
            return ""
        source = self.by_id.get(claim.citations[0])
        if source is None:
            return ""
        sentences = self._sentences(source)
        at = next((i for i, s in enumerate(sentences) if claim.quotes[0].text in s), None)
        for s in sentences[at + 1 :] if at is not None else []:
            text = self._quote(source, s)
            if text:
                return text
        return ""

    def example(self, kept: Sequence[Claim]) -> str:
        """A sentence of a cited passage that gives an example, quoted."""
        cited = [self.by_id[c] for c in dict.fromkeys(c for k in kept for c in k.citations)]
        for marker in _EXAMPLES:
            for source in (s for s in cited if s is not None):
                for s in self._sentences(source):
                    if marker.search(s) and not any(u in s or s in u for u in self.used):
                        text = self._quote(source, s)
                        if text:
                            return text
        return ""

    def absent(self, question: str) -> tuple[str, ...]:
        """Up to two of a reader's next questions (what it cost, who opposed it, how it
        turned out) that no retained passage touches in any form. Not the question's own
        words: a passage that says "more people will access the internet via mobile" does
        not mention "overtaking", yet says it, and a reader would take the block to say
        the idea is missing."""
        lacking = [t for t in NEXT_QUESTIONS if not absent_problems([t], self.sources)]
        return tuple(lacking[:2])

    def check(self, question: str, kept: Sequence[Claim]) -> LessonBlock | None:
        """A question in the reader's own terms, answered by a kept sentence whose source
        names a speaker: `What did Roosevelt say in 1941 about freedom of speech?`"""
        for claim in [*kept[1:], kept[0]]:
            source = self.by_id.get(claim.citations[0]) if claim.citations else None
            who = self._voice(source) if source else None
            if source is None or who is None or not claim.quotes:
                continue
            topic = _topic(question, claim.quotes[0].text)
            year = f" in {source.date[:4]}" if source.date else ""
            ask = f"What did {who.name} say{year} about {topic}?"
            if topic and not question_problems(ask, strip_markers(claim.text), [source]):
                return LessonBlock(kind="check", question=ask, text=claim.text)
        return None

    def relations(self) -> list[Relation]:
        """Relations that sentences of the passages spell out word for word, between a named
        subject and an object that names something; then what a source's speaker states
        in the first person (`I propose ...`), with the speaker as subject."""
        found: list[Relation] = []
        seen: set[tuple[str, str, str]] = set()
        for source in self.sources:
            self._first_person(source, found, seen)
            for s in self._sentences(source):
                for kind, verb, pattern in _PATTERNS:
                    for m in pattern.finditer(s):
                        subject, obj = m.group(1), m.group(2).rstrip(" ,;:.")
                        key = (subject.lower(), kind, obj.lower())
                        if key in seen or len(found) == MAX_RELATIONS or not _named(subject, obj):
                            continue
                        seen.add(key)
                        relation = Relation(
                            id=f"R{len(found) + 1}",
                            subject=subject,
                            relation=kind,
                            object=obj,
                            citations=(source.id,),
                            verb=verb,
                        )
                        found.append(relation)
        return found


def _first_person_object(text: str) -> str:
    """The object as a relation names it: the words up to a clause's end, two to eight."""
    words = text.rstrip(" ,;:.").split()
    return " ".join(words) if 2 <= len(words) <= 8 else ""


def _named(subject: str, obj: str) -> bool:
    """Both ends name something: the subject is no pronoun or opening word, and the object
    (two words or more) holds a capitalised word past its first."""
    words = subject.replace("'", " ").split()
    if any(w.lower() in _NOT_NAMES for w in words) or words[0].lower().endswith("ly"):
        return False
    if len(obj.split()) < 2:
        return False
    return any(w[:1].isupper() and w.lower() not in _NOT_NAMES for w in obj.split()[1:])


def _topic(question: str, quote: str) -> str:
    """The longest run of the question's words that the quote holds, stop words trimmed."""
    words = question.rstrip("?").split()
    low = quote.lower()
    best = ""
    for i in range(len(words)):
        for j in range(len(words), i, -1):
            run = words[i:j]
            while run and run[0].lower() in _QUESTION_STOP and run[0].lower() != "the":
                run = run[1:]
            if run and run[0].lower() == "the" and (len(run) == 1 or not run[1][:1].isupper()):
                run = run[1:]  # "the" stays only before a name: "the Northern Ferry Service"
            while run and run[-1].lower() in _QUESTION_STOP:
                run = run[:-1]
            phrase = " ".join(run)
            if phrase and phrase.lower() in low and len(phrase) > len(best):
                best = phrase
    return best


def _add(found: list[Relation], seen: set[tuple[str, str, str]], relation: Relation) -> None:
    key = (relation.subject.lower(), relation.relation, relation.object.lower())
    if key not in seen and len(found) < MAX_RELATIONS:
        seen.add(key)
        found.append(relation.model_copy(update={"id": f"R{len(found) + 1}"}))
