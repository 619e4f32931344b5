"""A lesson as its page shows it, built from the lesson's sealed receipt alone.

The view is built only once `lesson_hash` of the receipt's reviewed blocks and relations
equals the `lesson_sha256` its review recorded (and the lesson names the answer it is
stored as explaining): a lesson changed after its review is shown as withheld, with
`LESSON_CHANGED` and nothing of it. A reader sees the kept blocks (their published text,
citing `[S#]`) and the kept relations, each with its sentence and the passage it stands on,
the words marked; nothing dropped or unreviewed. An editor also sees every review decision
with its reason (`review_rows`). The diagram is drawn by `teaching/svg.py` from the kept
relations alone, each arrow linking to its evidence on the same page (`#evidence-R1`).

Nothing here writes markup: the templates escape every text, and the SVG is the one piece
of markup, escaped where it is written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ...teaching.layout import DiagramEdge
from ...teaching.svg import render_svg
from ...trust.teaching import lesson_hash, not_said_sentence, relation_verb
from ...types import BLOCK_TITLES, BlockReview, Receipt, RelationReview, Source, Teaching
from .views import Segment, SourceCard, card, segments

LESSON_CHANGED = "This lesson changed after its review and is not shown."
NO_LESSON = "The explanation ended without a lesson: nothing of it is shown."
LIVE = ("queued", "running")
CONTEXT_CHARS = 240  # of a passage, either side of the words a relation stands on
_MARKERS = re.compile(r"\s*\[S\d+\]")


@dataclass(frozen=True)
class LessonBlockView:
    """A kept block as its reader sees it: its title, its published text with `[S#]`
    citations, the question a check block asks, and the sources it cites."""

    kind: str
    title: str
    text: tuple[Segment, ...]
    question: str
    sources: tuple[SourceCard, ...]


@dataclass(frozen=True)
class EvidenceView:
    """Where a relation stands: a passage of a cited source (`number`, 1-based, as its
    source's page numbers it), with the words it stands on marked."""

    source: SourceCard
    number: int
    before: str
    marked: str
    after: str


@dataclass(frozen=True)
class RelationView:
    """A kept relation: one arrow of the diagram, its sentence and its evidence."""

    id: str
    subject: str
    verb: str
    object: str
    sentence: tuple[Segment, ...]
    plain: str  # the sentence without its citation markers
    evidence: tuple[EvidenceView, ...]

    @property
    def anchor(self) -> str:
        return f"evidence-{self.id}"


@dataclass(frozen=True)
class ReviewRow:
    """One decision of the teaching review, for editors: what was proposed, and why it
    was kept, dropped or left unreviewed."""

    part: str  # "block" or "relation"
    label: str  # a block's title, or a relation's id
    proposed: str
    decision: str
    reason: str


@dataclass(frozen=True)
class LessonView:
    """An explanation run as its lesson page shows it. `decision` is None until the run has
    a receipt; `reviews` is filled for editors alone."""

    run_id: str
    answer_run_id: str
    question: str
    state: str
    failure: str | None = None
    decision: str | None = None
    reason: str = ""
    blocks: tuple[LessonBlockView, ...] = ()
    relations: tuple[RelationView, ...] = ()
    diagram: str = ""
    reviews: tuple[ReviewRow, ...] = ()

    @property
    def live(self) -> bool:
        return self.state in LIVE

    @property
    def published(self) -> bool:
        return self.decision == "PUBLISHED"

    @property
    def withheld(self) -> bool:
        return self.decision == "WITHHELD"


def _plain(sentence: str) -> str:
    """A sentence without its `[S#]` markers: `Congress created the Department [S1].` →
    `Congress created the Department.`"""
    return _MARKERS.sub("", sentence).strip()


def _cited(text: str, cards: dict[str, SourceCard]) -> tuple[SourceCard, ...]:
    ids = dict.fromkeys(v for kind, v in segments(text) if kind == "cite")
    return tuple(cards[i] for i in ids if i in cards)


def _block(review: BlockReview, cards: dict[str, SourceCard]) -> LessonBlockView:
    block = review.block
    return LessonBlockView(
        kind=block.kind,
        title=BLOCK_TITLES.get(block.kind, block.kind),
        text=tuple(segments(review.published)),
        question=block.question if block.kind == "check" else "",
        sources=_cited(review.published, cards),
    )


def _mark(text: str, candidates: Sequence[str]) -> tuple[str, str, str] | None:
    """`text` cut around the first candidate it holds (case folded): before, words, after."""
    folded = text.casefold()
    for words in candidates:
        at = folded.find(words.casefold()) if words else -1
        if at >= 0:
            return text[:at], text[at : at + len(words)], text[at + len(words) :]
    return None


def _evidence(review: RelationReview, sources: dict[str, Source]) -> tuple[EvidenceView, ...]:
    """For each source the relation cites, the passage it stands on: the one the review
    found carrying it (`claim.evidence`), else the first that holds its words."""
    claim = review.claim
    carried = set(claim.evidence) if claim is not None else set()
    out: list[EvidenceView] = []
    for source_id in review.relation.citations:
        source = sources.get(source_id)
        if source is None:
            continue
        spans = [s.text for s in (claim.spans if claim else ()) if s.source_id == source_id]
        words = [*spans, _plain(review.sentence).rstrip(".")]
        numbered = list(enumerate(source.passages, start=1))
        found = next(((n, p) for n, p in numbered if p.id in carried), None)
        found = found or next(((n, p) for n, p in numbered if _mark(p.text, words)), None)
        if found is None:
            continue
        number, passage = found
        before, marked, after = _mark(passage.text, words) or (passage.text, "", "")
        if len(before) > CONTEXT_CHARS:
            before = "…" + before[-CONTEXT_CHARS:].lstrip()
        if len(after) > CONTEXT_CHARS:
            after = after[:CONTEXT_CHARS].rstrip() + "…"
        card_ = card(source.model_dump(mode="json"))
        out.append(EvidenceView(card_, number, before, marked, after))
    return tuple(out)


def _relation(review: RelationReview, sources: dict[str, Source]) -> RelationView:
    r = review.relation
    return RelationView(
        id=r.id,
        subject=" ".join(r.subject.split()),
        verb=relation_verb(r),
        object=" ".join(r.object.split()),
        sentence=tuple(segments(review.sentence)),
        plain=_plain(review.sentence),
        evidence=_evidence(review, sources),
    )


def diagram_svg(relations: Sequence[RelationView], question: str) -> str:
    """The diagram of the kept relations (`teaching/svg.py`); empty when there is none or
    when they cannot be drawn (the text list beside it still says everything)."""
    edges = [
        DiagramEdge(
            id=r.id,
            subject=r.subject,
            relation=r.verb,
            object=r.object,
            href=f"#{r.anchor}",
            sentence=r.plain,
        )
        for r in relations
    ]
    if not edges:
        return ""
    title = f"Diagram of the lesson: {question}"
    try:
        return render_svg(edges, title=title, description=" ".join(e.sentence for e in edges))
    except ValueError:
        return ""


def _proposed(review: BlockReview) -> str:
    block = review.block
    if block.kind == "not_said":
        return not_said_sentence(block.absent) if block.absent else ""
    if block.kind == "check":
        return f"{block.question} {block.text}".strip()
    return block.text


def _says(review: BlockReview | RelationReview) -> tuple[str, str]:
    return review.decision, review.reason


def review_rows(teaching: Teaching) -> tuple[ReviewRow, ...]:
    """Every block and relation the teacher proposed, with its review's decision."""
    blocks = [
        ReviewRow("block", BLOCK_TITLES.get(b.block.kind, b.block.kind), _proposed(b), *_says(b))
        for b in teaching.blocks
    ]
    relations = [
        ReviewRow("relation", r.relation.id, r.sentence, *_says(r)) for r in teaching.relations
    ]
    return (*blocks, *relations)


def lesson_view(base: LessonView, receipt: Receipt | None, *, editor: bool) -> LessonView:
    """`base` (the run's ids, question and state) with what its lesson receipt lets the
    reader see (see the module docstring); `editor` adds every review decision."""
    if receipt is None:
        return base
    teaching = receipt.teaching
    if teaching is None:
        return withheld(base, NO_LESSON)
    if (
        lesson_hash(teaching.blocks, teaching.relations) != teaching.lesson_sha256
        or teaching.answer_run_id != base.answer_run_id
    ):
        return withheld(base, LESSON_CHANGED)
    reviews = review_rows(teaching) if editor else ()
    if teaching.decision != "PUBLISHED":
        return withheld(base, teaching.reason, reviews)
    sources = {s.id: s for s in receipt.sources}
    cards = {i: card(s.model_dump(mode="json")) for i, s in sources.items()}
    blocks = tuple(_block(b, cards) for b in teaching.blocks if b.decision == "kept")
    relations = tuple(_relation(r, sources) for r in teaching.relations if r.decision == "kept")
    return LessonView(
        run_id=base.run_id,
        answer_run_id=base.answer_run_id,
        question=base.question,
        state=base.state,
        failure=base.failure,
        decision="PUBLISHED",
        reason=teaching.reason,
        blocks=blocks,
        relations=relations,
        diagram=diagram_svg(relations, base.question),
        reviews=reviews,
    )


def withheld(base: LessonView, reason: str, reviews: tuple[ReviewRow, ...] = ()) -> LessonView:
    return LessonView(
        run_id=base.run_id,
        answer_run_id=base.answer_run_id,
        question=base.question,
        state=base.state,
        failure=base.failure,
        decision="WITHHELD",
        reason=reason,
        reviews=reviews,
    )
