"""The teacher's typed output, and its conversion into a `Lesson`.

A teacher (a model, or the offline engine behind the same agent) returns blocks of sentences
citing `[S#]` and typed relations (subject, relation, object, the sources it rests on), and
nothing else: no coordinates, no markup, no code, which the schema has no field for. The
conversion keeps the lesson's bounds (blocks in reading order, one of each kind, at most
`MAX_RELATIONS` relations, numbered `R1`, `R2`, ...) and drops a relation naming no source of
the run; it judges nothing. The teaching review (`runs/teach.py`) decides what is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from ..types import BLOCK_KINDS, BlockKind, Lesson, LessonBlock, Relation, RelationKind, Source
from .outputs import _Out

MAX_RELATIONS = 12
MAX_ABSENT = 3


class BlockOut(_Out):
    """One block of the lesson. `text`: sentences, each citing [S#], quotes in double
    quotes copied character for character. For `not_said`: `absent` names terms the passages
    never mention (the text is written by the desk). For `check`: `question` asks, `text`
    answers it."""

    kind: BlockKind
    text: str = Field(description="The block's sentences, each citing [S#]; empty for not_said.")
    question: str = Field(description="For check: the question; else empty.")
    absent: list[str] = Field(description="For not_said: terms no passage mentions; else empty.")


class RelationOut(_Out):
    """One arrow of the diagram: subject, relation, object, as the passages say it."""

    subject: str = Field(description="A named thing, as the passage names it.")
    relation: RelationKind
    object: str = Field(description="What the subject is related to, as the passage names it.")
    sources: list[str] = Field(description="The source ids it rests on ('S1').")
    verb: str = Field(description="The passage's own verb for the relation, or empty.")


class LessonOut(_Out):
    """A lesson of the answer: its blocks in order, and the diagram's relations."""

    blocks: list[BlockOut]
    relations: list[RelationOut]


def to_lesson(out: LessonOut, sources: Sequence[Source]) -> Lesson:
    """The lesson the output proposes, within its bounds (see the module docstring)."""
    ids = {s.id for s in sources}
    first: dict[str, BlockOut] = {}
    for b in out.blocks:
        first.setdefault(b.kind, b)
    blocks = tuple(
        LessonBlock(
            kind=kind,
            text=" ".join(first[kind].text.split())[:4000],
            question=" ".join(first[kind].question.split())[:400],
            absent=tuple(t.strip()[:80] for t in first[kind].absent if t.strip())[:MAX_ABSENT],
        )
        for kind in BLOCK_KINDS
        if kind in first
    )
    relations: list[Relation] = []
    for r in out.relations:
        cited = tuple(dict.fromkeys(s.strip("[] ") for s in r.sources if s.strip("[] ") in ids))
        subject, obj = " ".join(r.subject.split()), " ".join(r.object.split())
        if not cited or not subject or not obj or len(relations) == MAX_RELATIONS:
            continue
        relations.append(
            Relation(
                id=f"R{len(relations) + 1}",
                subject=subject[:120],
                relation=r.relation,
                object=obj[:160],
                citations=cited[:4],
                verb=" ".join(r.verb.split())[:40],
            )
        )
    return Lesson(blocks=blocks, relations=tuple(relations))


def lesson_output(lesson: Lesson) -> LessonOut:
    """A lesson as a model would return it (the offline engine's reply)."""
    return LessonOut(
        blocks=[
            BlockOut(kind=b.kind, text=b.text, question=b.question, absent=list(b.absent))
            for b in lesson.blocks
        ],
        relations=[
            RelationOut(
                subject=r.subject,
                relation=r.relation,
                object=r.object,
                sources=list(r.citations),
                verb=r.verb,
            )
            for r in lesson.relations
        ],
    )
