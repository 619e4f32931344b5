"""An explanation run: a lesson of a published answer, reviewed before anyone reads it.

Explaining is a stored run of its own (`RunState.explains` names the answer), not stages
added to the answer's run: the answer's receipt is sealed and chained when it publishes and
stays as it was, and the lesson gets a receipt of its own, which repeats the answer's
receipt and adds its `teaching` section. So an explanation is resumable like any run (the
same executors, records, leases and ledger), and a kill during it resumes without repeating
a model call: the teacher's and the auditor's replies are in the run's ledger.

Its stages (`state.EXPLAIN_STAGES`):

* `teach`: the teacher (a model, or the offline engine) proposes blocks and relations from
  the answer's receipt alone: its kept claims and its retained sources, no new retrieval,
  no new source, on the same budget rules as any run.
* `teaching_review`: every block and every relation gets exactly one decision, in code
  (`trust/teaching.py`): each sentence is checked under the grounding contract, all of them
  audited in one call, and each block and relation decided by the gate; an auditor that
  fails leaves every part `unreviewed`, and the lesson is withheld. The reviewed lesson's
  hash is recorded with it.
* `illustrate` (`illustrate.py`), only for a run asked to illustrate whose lesson was
  published, with an illustrator set: a picture drawn, checked and reviewed, shown or not.
* `publish`: the lesson's receipt, sealed and chained (`publish.Publisher`), refused when
  the reviewed lesson no longer matches its hash; it carries the `illustration` when the
  run made one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .. import judgment
from ..agents.base import AgentFailure, Teacher
from ..trust.checks import CheckedClaim
from ..trust.gate import PUBLISHING
from ..trust.teaching import (
    absent_problems,
    block_decision,
    lesson_decision,
    lesson_hash,
    not_said_sentence,
    question_problems,
    relation_decision,
    relation_problems,
    relation_sentence,
    speaker_carrier,
)
from ..types import (
    BlockReview,
    Claim,
    ClaimAudit,
    Decision,
    Lesson,
    LessonBlock,
    Receipt,
    Relation,
    RelationReview,
    Source,
    Teaching,
)
from .deps import Deps, Step
from .illustrate import IllustrationParts, illustrates
from .state import RunState


@dataclass(frozen=True)
class TeachingParts:
    """What an explanation run needs beyond a run's parts: the teacher, the sealed receipt
    of a published answer by its run id (None when it has none), and the illustrator's
    parts (None: illustrations are off)."""

    teacher: Teacher
    answer_receipt: Callable[[str], Receipt | None]
    illustration: IllustrationParts | None = None


class NotExplainable(LookupError):
    """The run an explanation names has no published receipt to explain."""


def answer_of(state: RunState, deps: Deps) -> Receipt:
    """The sealed receipt of the answer `state` explains."""
    if deps.teaching is None or state.explains is None:
        raise RuntimeError(f"Run {state.run_id} is not an explanation run.")
    receipt = deps.teaching.answer_receipt(state.explains)
    if receipt is None or receipt.decision not in PUBLISHING:
        raise NotExplainable(f"Run {state.explains} has no published answer to explain.")
    return receipt


def teach_stage(state: RunState, deps: Deps) -> Step:
    """The teacher's lesson of the answer, from its receipt alone."""
    answer = answer_of(state, deps)
    assert deps.teaching is not None  # answer_of checked it
    try:
        advice = deps.teaching.teacher.teach(
            answer.question, answer.claims, answer.sources, deps.budget
        )
    except AgentFailure as failure:
        updates = {"lesson": None, "lesson_failure": failure.reason}
        return Step(updates, "teaching_review", failure.usage, failure.reason)
    return Step({"lesson": advice.value, "lesson_failure": None}, "teaching_review", advice.usage)


@dataclass(frozen=True)
class _Part:
    """One block or relation as the review judges it: the text its sentences are."""

    text: str
    checked: tuple[CheckedClaim, ...]


def _judged_text(block: LessonBlock) -> str:
    return "" if block.kind == "not_said" else block.text


def teaching_review_stage(state: RunState, deps: Deps) -> Step:
    """One decision for every block and relation (see the module docstring)."""
    answer = answer_of(state, deps)
    lesson = state.lesson or Lesson(blocks=())
    sources = answer.sources
    texts = deps.source_texts(sources)
    block_texts = [_judged_text(b) for b in lesson.blocks]
    relation_texts = [relation_sentence(r) for r in lesson.relations]
    parts = [
        _Part(t, tuple(judgment.check(t, sources, texts)) if t else ())
        for t in [*block_texts, *relation_texts]
    ]
    every = [c for p in parts for c in p.checked]
    audited = judgment.audit(answer.question, every, sources, deps.auditor, deps.budget)
    failure = audited.failure.reason if audited.failure is not None else None
    audits = iter(audited.audits)
    judged = [_decide(p, [next(audits) for _ in p.checked], answer, texts, failure) for p in parts]
    n = len(lesson.blocks)
    blocks = tuple(
        _block_review(b, judged[i], sources, failure) for i, b in enumerate(lesson.blocks)
    )
    relations = tuple(
        _relation_review(r, relation_texts[i], judged[n + i], failure, sources)
        for i, r in enumerate(lesson.relations)
    )
    decision, reason = lesson_decision(blocks, relations)
    if state.lesson_failure is not None:
        reason = f"The teacher gave no lesson: {state.lesson_failure} Nothing is shown."
    teaching = Teaching(
        answer_run_id=answer.run_id,
        answer_receipt_sha256=answer.integrity.canonical_sha256 if answer.integrity else "",
        teacher=_teacher_engine(state, deps),
        blocks=blocks,
        relations=relations,
        decision=decision,
        reason=reason,
        lesson_sha256=lesson_hash(blocks, relations),
    )
    after = "illustrate" if illustrates(state, deps, decision) else "publish"
    return Step({"teaching": teaching}, after, audited.usage, failure)


@dataclass(frozen=True)
class _Judged:
    claims: tuple[Claim, ...]
    gate: Decision | None
    published: str
    failure: str | None


def _decide(
    part: _Part,
    audits: Sequence[ClaimAudit],
    answer: Receipt,
    texts: dict[str, str],
    failure: str | None,
) -> _Judged:
    if failure is not None or not part.checked:
        return _Judged((), None, "", failure)
    claims, outcome = judgment.decide(
        part.checked,
        audits,
        answer.coverage,
        answer.policy,
        sources=answer.sources,
        texts=texts if answer.policy.grounding == "paraphrase" else None,
    )
    return _Judged(tuple(claims), outcome.decision, outcome.published_answer, None)


def _block_review(
    block: LessonBlock, judged: _Judged, sources: Sequence[Source], failure: str | None
) -> BlockReview:
    if failure is not None:
        return BlockReview(block=block, decision="unreviewed", reason=failure)
    if block.kind == "not_said":
        problems = absent_problems(block.absent, sources)
        if problems:
            return BlockReview(block=block, decision="dropped", reason=f"{problems[0]}.")
        text = not_said_sentence(block.absent)
        reason = "No retained passage mentions these terms."
        return BlockReview(block=block, published=text, decision="kept", reason=reason)
    extra: list[str] = []
    if block.kind == "check":
        cited = [s for s in sources if any(s.id in c.citations for c in judged.claims)]
        extra = question_problems(block.question, block.text, cited)
    if not judged.claims:
        extra.append("the block has no sentence to check")
    kept = block_decision(judged.gate, extra)
    reason = _reason(judged, extra)
    return BlockReview(
        block=block,
        claims=judged.claims,
        gate=judged.gate,
        published=judged.published if kept else "",
        decision="kept" if kept else "dropped",
        reason=reason,
    )


def _reason(judged: _Judged, extra: Sequence[str]) -> str:
    if extra:
        return f"Dropped: {extra[0]}."
    unsupported = [c for c in judged.claims if not c.kept]
    if judged.gate in PUBLISHING and not unsupported:
        return "Every sentence is carried by its cited passages."
    if judged.gate in PUBLISHING:
        return f"Kept after {len(unsupported)} unsupported sentence(s) were pruned."
    why = next((c.checks.grounding[0] for c in unsupported if c.checks.grounding), "")
    return f"Dropped: the gate holds it{': ' + why if why else ''}."


def _relation_review(
    relation: Relation,
    sentence: str,
    judged: _Judged,
    failure: str | None,
    sources: Sequence[Source],
) -> RelationReview:
    if failure is not None:
        return RelationReview(
            relation=relation, sentence=sentence, decision="unreviewed", reason=failure
        )
    claim = judged.claims[0] if judged.claims else None
    speaker = speaker_carrier(relation, sources)
    kept = relation_decision(relation, claim, judged.gate, speaker)
    if claim is None:
        reason = "Dropped: no sentence to check."
    elif kept and speaker is not None and judged.gate != Decision.AUTO_CLEARED:
        reason = f"Carried by the speaker's own words in the first person (passage {speaker})."
    else:
        reason = _reason(judged, relation_problems(relation, claim))
    return RelationReview(
        relation=relation,
        sentence=sentence,
        claim=claim,
        gate=judged.gate,
        speaker=speaker or "",
        decision="kept" if kept else "dropped",
        reason=reason,
    )


def _teacher_engine(state: RunState, deps: Deps) -> str:
    record = next((s for s in reversed(state.stages) if s.name == "teach"), None)
    if record is not None and record.engine:
        return record.engine
    return deps.teaching.teacher.engine_id if deps.teaching is not None else ""


def lesson_receipt(state: RunState, answer: Receipt) -> Receipt:
    """The unsealed receipt of an explanation run: the answer's receipt as it was sealed,
    with this run's id and time, the reviewed lesson as its `teaching` section, and its
    `illustration` when the run made one (shown or not)."""
    if state.teaching is None:
        raise RuntimeError(f"Run {state.run_id} has no reviewed lesson to publish.")
    teaching = state.teaching
    if lesson_hash(teaching.blocks, teaching.relations) != teaching.lesson_sha256:
        raise LessonChanged(
            f"The lesson of run {state.run_id} changed after its review: it is not published."
        )
    body = answer.model_dump(mode="json", exclude={"integrity"})
    body.update(run_id=state.run_id, created_at=state.created_at)
    body["teaching"] = teaching.model_dump(mode="json")
    body["teaching_stages"] = [s.model_dump(mode="json") for s in state.stages]
    if state.illustration is not None:
        body["illustration"] = state.illustration.model_dump(mode="json")
    return Receipt.model_validate(body)


class LessonChanged(RuntimeError):
    """A reviewed lesson whose hash no longer matches: publishing it is refused."""


__all__ = [
    "LessonChanged",
    "NotExplainable",
    "TeachingParts",
    "lesson_receipt",
    "teach_stage",
    "teaching_review_stage",
]
