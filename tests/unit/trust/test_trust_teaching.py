"""The teaching review's rules (`trust/teaching.py`), judged through the real review stage.

Each lesson here is reviewed by `runs.teach.teaching_review_stage` against a small answer
receipt, exactly as an explanation run reviews one; `teaching_problems` must then find the
lesson consistent, and find every change made to it afterwards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import pytest

from evidence_desk.agents.base import (
    Advice,
    AgentFailure,
    ClaimToAudit,
    ModelUsage,
    RunBudget,
)
from evidence_desk.judgment import judge
from evidence_desk.runs.deps import Deps, PipelineConfig
from evidence_desk.runs.selection import SelectionBounds
from evidence_desk.runs.state import RunState
from evidence_desk.runs.teach import (
    LessonChanged,
    TeachingParts,
    lesson_receipt,
    teaching_review_stage,
)
from evidence_desk.trust.teaching import (
    absent_problems,
    illustration_problems,
    lesson_decision,
    lesson_hash,
    not_said_sentence,
    picture_problems,
    question_problems,
    relation_decision,
    relation_problems,
    relation_sentence,
    speaker_carrier,
    speaker_names,
    teaching_problems,
)
from evidence_desk.types import (
    ClaimAudit,
    Coverage,
    Decision,
    EngineIds,
    GatePolicy,
    Illustration,
    ImageReview,
    Lesson,
    LessonBlock,
    Plan,
    Receipt,
    Relation,
    ScoredPassage,
    Source,
    Teaching,
    Usage,
    Verdict,
)

TEXT = (
    "Congress created the Department of Energy to bring the energy programs together. "
    "The new Department will manage the national laboratories of the country. "
    "For example, it will run the laboratory at Oak Ridge. "
    "I also recommend a national energy plan. I would recommend a tax on gasoline."
)
SOURCE = Source(
    id="S1",
    doc_id="1978-Carter",
    title="Jimmy Carter: State of the Union Address, 1978",
    date="1978-01-19",
    names=("Jimmy Carter",),
    offices=("President",),
    retrieved_at="2026-01-01T00:00:00Z",
    content_sha256=hashlib.sha256(TEXT.encode("utf-8")).hexdigest(),
    passages=(ScoredPassage(id="1978-Carter#0", text=TEXT, start=0, end=len(TEXT), score=0.9),),
)
POLICY = GatePolicy(coverage_floor=0.2)
COVERAGE = Coverage(covered=True, score=0.9, floor=0.2, reason="")
KEY = 'In 1978, Carter said: "Congress created the Department of Energy" [S1].'
HOW = 'Carter also said: "The new Department will manage the national laboratories" [S1].'
EXAMPLE = 'Carter also said: "it will run the laboratory at Oak Ridge" [S1].'
QUESTION = "What did Carter say in 1978 about the national laboratories?"
CREATED = Relation(
    id="R1",
    subject="Congress",
    relation="created",
    object="the Department of Energy",
    citations=("S1",),
)


class Supporting:
    """Finds every claim supported (advice the checks still judge); or fails, like a
    provider that gave up."""

    engine_id = "test-auditor"

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.calls = 0

    def audit(
        self,
        question: str,
        claims: Sequence[ClaimToAudit],
        sources: Sequence[Source],
        budget: RunBudget,
    ) -> Advice[list[ClaimAudit]]:
        self.calls += 1
        if self.fail:
            raise AgentFailure("auditor", "The auditor's provider kept failing.", ModelUsage("x"))
        audit = ClaimAudit(verdict=Verdict.SUPPORTED, evidence=("1978-Carter#0",))
        return Advice([audit for _ in claims], ModelUsage(self.engine_id))


def _answer() -> Receipt:
    judged = judge(KEY, "Q", [SOURCE], {"S1": TEXT}, Supporting(), _budget(), COVERAGE, POLICY)
    claims = list(judged.claims)
    return Receipt(
        run_id="run-answer",
        created_at="2026-01-01T00:00:00Z",
        question="What did Carter say about the Department of Energy?",
        plan=Plan(subquestions=(), queries=()),
        sources=[SOURCE],
        draft=KEY,
        claims=claims,
        quotes=[q for c in claims for q in c.quotes],
        decision=judged.outcome.decision,
        reason=judged.outcome.reason,
        published_answer=judged.outcome.published_answer,
        engine=EngineIds(planner="offline", answerer="offline", auditor="offline"),
        policy=POLICY,
        coverage=COVERAGE,
        stages=[],
        usage=Usage(),
    )


def _budget() -> RunBudget:
    return RunBudget(12, 90_000)


class _Teacher:
    engine_id = "test-teacher"

    def teach(self, *args: Any) -> Advice[Lesson]:
        raise AssertionError("the review never asks the teacher")


class _NoArchive:
    def texts(self, pairs: Any) -> dict[tuple[str, str], str]:
        raise AssertionError("the review reads the run's texts from its cache here")


def review(lesson: Lesson, *, answer: Receipt | None = None, fail: bool = False) -> RunState:
    """The explanation run's state after its teaching review of `lesson`."""
    answer = answer or _answer()
    teaching = TeachingParts(teacher=_Teacher(), answer_receipt=lambda _: answer)
    config = PipelineConfig(policy=POLICY, bounds=SelectionBounds(5, 3), rare_term_max_df=0.01)
    deps = Deps(
        archive=_NoArchive(),  # type: ignore[arg-type]
        planner=None,  # type: ignore[arg-type]
        answerer=None,  # type: ignore[arg-type]
        auditor=Supporting(fail),
        config=config,
        budget=_budget(),
        texts={(SOURCE.doc_id, SOURCE.content_sha256): TEXT},
        teaching=teaching,
    )
    state = RunState.explaining("run-lesson", "2026-01-02T00:00:00Z", answer.question, "run-x")
    state = state.model_copy(update={"lesson": lesson})
    step = teaching_review_stage(state, deps)
    return state.model_copy(update=dict(step.updates))


def receipt_of(state: RunState, answer: Receipt | None = None) -> Receipt:
    return lesson_receipt(state, answer or _answer())


FULL = Lesson(
    blocks=(
        LessonBlock(kind="key_idea", text=KEY),
        LessonBlock(kind="how", text=HOW),
        LessonBlock(kind="example", text=EXAMPLE),
        LessonBlock(kind="not_said", absent=("tariff", "budget")),
        LessonBlock(kind="check", question=QUESTION, text=HOW),
    ),
    relations=(CREATED,),
)


def _teaching(state: RunState) -> Teaching:
    assert state.teaching is not None
    return state.teaching


def test_a_faithful_lesson_is_published_whole_and_verifies() -> None:
    state = review(FULL)
    t = _teaching(state)
    assert t.decision == "PUBLISHED"
    assert [b.decision for b in t.blocks] == ["kept"] * 5
    assert t.blocks[3].published == (
        'None of the passages this answer rests on mentions "tariff" or "budget".'
    )
    assert [r.decision for r in t.relations] == ["kept"]
    assert t.relations[0].sentence == "Congress created the Department of Energy [S1]."
    assert t.lesson_sha256 == lesson_hash(t.blocks, t.relations)
    assert teaching_problems(receipt_of(state)) == []


@pytest.mark.parametrize(
    "relation",
    [
        CREATED.model_copy(update={"relation": "opposed"}),  # the false kind
        CREATED.model_copy(update={"relation": "caused"}),
        CREATED.model_copy(update={"subject": "The President"}),  # a subject it never names
        CREATED.model_copy(update={"object": "the Department of Defense"}),
        CREATED.model_copy(update={"relation": "ended", "verb": "abolished"}),
    ],
)
def test_a_hostile_relation_is_dropped_and_the_drop_verifies(relation: Relation) -> None:
    state = review(Lesson(blocks=FULL.blocks, relations=(relation,)))
    t = _teaching(state)
    assert t.relations[0].decision == "dropped"
    assert t.relations[0].reason.startswith("Dropped")
    assert t.decision == "PUBLISHED"  # the lesson stands without it
    assert teaching_problems(receipt_of(state)) == []


def test_a_verb_that_does_not_say_its_kind_is_dropped_though_its_sentence_is_carried() -> None:
    relation = CREATED.model_copy(update={"relation": "caused", "verb": "created"})
    assert relation_problems(relation) == ['"created" does not say "caused"']
    assert relation_sentence(relation) == "Congress caused the Department of Energy [S1]."
    honest = CREATED.model_copy(update={"verb": "Established"})
    assert relation_problems(honest) == []
    assert relation_sentence(honest).startswith("Congress established the")
    state = review(Lesson(blocks=FULL.blocks[:1], relations=(relation,)))
    assert _teaching(state).relations[0].decision == "dropped"
    assert teaching_problems(receipt_of(state)) == []


def test_a_relation_carried_only_as_a_paraphrase_is_dropped() -> None:
    """The paraphrase tier's anchors hold a sentence's words, not who did what to whom:
    `the Department of Energy created Congress` must never stand on its words."""
    state = review(FULL)
    claim = _teaching(state).relations[0].claim
    assert claim is not None and claim.checks.tier != "paraphrase"
    assert relation_problems(CREATED, claim) == []
    swapped = claim.model_copy(
        update={"checks": claim.checks.model_copy(update={"tier": "paraphrase"})}
    )
    assert relation_problems(CREATED, swapped) == [
        "its sentence is carried only as a paraphrase, not in the passage's order"
    ]


def test_a_not_said_term_the_passages_hold_is_dropped() -> None:
    lesson = Lesson(blocks=(FULL.blocks[0], LessonBlock(kind="not_said", absent=("Oak Ridge",))))
    state = review(lesson)
    block = _teaching(state).blocks[1]
    assert block.decision == "dropped"
    assert block.reason == 'passage 1978-Carter#0 mentions "Oak Ridge".'
    assert teaching_problems(receipt_of(state)) == []


def test_a_check_question_that_brings_new_words_is_dropped() -> None:
    ask = "What did Carter say about nuclear weapons?"
    lesson = Lesson(blocks=(FULL.blocks[0], LessonBlock(kind="check", question=ask, text=HOW)))
    state = review(lesson)
    block = _teaching(state).blocks[1]
    assert block.decision == "dropped"
    assert "nuclear" in block.reason
    assert teaching_problems(receipt_of(state)) == []


def test_an_unsupported_block_is_dropped_and_a_dropped_key_idea_withholds() -> None:
    made_up = 'Carter also said: "Congress abolished the Department of Energy" [S1].'
    state = review(Lesson(blocks=(LessonBlock(kind="key_idea", text=made_up), FULL.blocks[1])))
    t = _teaching(state)
    assert [b.decision for b in t.blocks] == ["dropped", "kept"]
    assert t.decision == "WITHHELD"
    assert t.reason.startswith("The key idea did not pass review")
    assert teaching_problems(receipt_of(state)) == []


def test_a_block_of_one_bad_sentence_among_good_ones_is_kept_pruned() -> None:
    text = f"{HOW} {EXAMPLE} Carter said the laboratories were closed [S1]."
    state = review(Lesson(blocks=(FULL.blocks[0], LessonBlock(kind="how", text=text))))
    block = _teaching(state).blocks[1]
    assert block.decision == "kept"
    assert block.gate == Decision.PUBLISHED_AFTER_PRUNING
    assert "closed" not in block.published
    assert block.reason.startswith("Kept after 1 unsupported")
    assert teaching_problems(receipt_of(state)) == []


def test_a_lesson_without_a_key_idea_or_a_lesson_at_all_is_withheld() -> None:
    state = review(Lesson(blocks=(FULL.blocks[1],)))
    assert _teaching(state).decision == "WITHHELD"
    assert "has no key idea" in _teaching(state).reason
    state = review(Lesson(blocks=(LessonBlock(kind="how", text=""),)))
    assert _teaching(state).blocks[0].reason == "Dropped: the block has no sentence to check."
    assert teaching_problems(receipt_of(state)) == []


def test_an_incomplete_review_withholds_the_whole_lesson() -> None:
    state = review(FULL, fail=True)
    t = _teaching(state)
    assert {b.decision for b in t.blocks} == {"unreviewed"}
    assert {r.decision for r in t.relations} == {"unreviewed"}
    assert t.decision == "WITHHELD"
    assert "incomplete: 6 of 6 parts" in t.reason
    assert teaching_problems(receipt_of(state)) == []


def _tampered(state: RunState, rehash: bool = True, **changes: Any) -> Receipt:
    """The lesson receipt with `changes` made to its teaching section after review (with
    the lesson hash recomputed over them when `rehash`)."""
    receipt = receipt_of(state)
    t = _teaching(state).model_copy(update=changes)
    if rehash:
        t = t.model_copy(update={"lesson_sha256": lesson_hash(t.blocks, t.relations)})
    return receipt.model_copy(update={"teaching": t})


def test_every_change_after_review_is_found() -> None:
    state = review(FULL)
    t = _teaching(state)
    blocks = list(t.blocks)
    relations = list(t.relations)

    changed = [blocks[0], blocks[1].model_copy(update={"published": "Carter said so [S1]."})]
    problems = teaching_problems(_tampered(state, rehash=False, blocks=(*changed, *blocks[2:])))
    assert "The lesson was changed after its review: its hash does not match." in problems
    assert "Lesson block 2 (how)'s published text is not what its review keeps." in problems

    dropped = blocks[2].model_copy(update={"decision": "dropped", "published": ""})
    problems = teaching_problems(_tampered(state, blocks=(*blocks[:2], dropped, *blocks[3:])))
    assert problems == [
        "Lesson block 3 (example)'s published text is not what its review keeps.",
        "Lesson block 3 (example)'s decision does not follow from its checks.",
    ]

    said = blocks[3].model_copy(update={"published": "None of them mentions tariffs."})
    problems = teaching_problems(_tampered(state, blocks=(*blocks[:3], said, blocks[4])))
    assert problems == [
        "Lesson block 4 (not_said)'s published sentence is not the one its terms give."
    ]

    swapped = relations[0].model_copy(update={"sentence": "Congress ended the Department [S1]."})
    problems = teaching_problems(_tampered(state, relations=(swapped,)))
    assert problems == ["Relation R1's sentence is not the one its relation gives."]

    twice = (relations[0], relations[0])
    assert "Two relations of the lesson share an id." in teaching_problems(
        _tampered(state, relations=twice)
    )

    unjudged = relations[0].model_copy(update={"gate": None})
    problems = teaching_problems(_tampered(state, relations=(unjudged,)))
    assert problems[0] == "Relation R1 has judged sentences but no gate decision."

    kept = relations[0].model_copy(update={"gate": Decision.HELD_FOR_REVIEW})
    problems = teaching_problems(_tampered(state, relations=(kept,)))
    assert "Relation R1's decision does not follow from its checks." in problems

    problems = teaching_problems(_tampered(state, decision="WITHHELD"))
    assert problems == [
        "The lesson's recorded decision WITHHELD does not follow from its review, which "
        "gives PUBLISHED."
    ]


def test_a_reworded_claim_inside_a_block_is_found_by_the_answer_checks() -> None:
    state = review(FULL)
    blocks = list(_teaching(state).blocks)
    claim = blocks[0].claims[0].model_copy(update={"text": KEY.replace("1978", "1979")})
    block = blocks[0].model_copy(update={"claims": (claim,)})
    problems = teaching_problems(_tampered(state, blocks=(block, *blocks[1:])))
    assert problems[0] == (
        "Lesson block 1 (key_idea): The recorded claims are not the sentences of the recorded "
        "draft."
    )


def test_a_published_lesson_of_an_answer_not_published_is_refused() -> None:
    state = review(FULL)
    receipt = receipt_of(state).model_copy(update={"decision": Decision.HELD_FOR_REVIEW})
    assert "The lesson is published but the answer it explains is not." in teaching_problems(
        receipt
    )
    assert teaching_problems(receipt.model_copy(update={"teaching": None})) == []


def test_publishing_refuses_a_lesson_changed_after_review() -> None:
    state = review(FULL)
    t = _teaching(state)
    changed = t.model_copy(update={"blocks": t.blocks[:1]})
    with pytest.raises(LessonChanged, match="changed after its review"):
        lesson_receipt(state.model_copy(update={"teaching": changed}), _answer())
    with pytest.raises(RuntimeError, match="no reviewed lesson"):
        lesson_receipt(state.model_copy(update={"teaching": None}), _answer())


def test_the_absence_and_question_rules() -> None:
    assert absent_problems((), [SOURCE]) == ["it names no term the sources lack"]
    assert absent_problems(("  ",), [SOURCE]) == ["it names no term the sources lack"]
    assert absent_problems(("national  laboratories",), [SOURCE]) == [
        'passage 1978-Carter#0 mentions "national laboratories"'
    ]
    # any form of a word mentions it: "laboratories" mentions "labor", a safe excess
    assert absent_problems(("labor", "opposition"), [SOURCE]) == [
        'passage 1978-Carter#0 mentions "labor"'
    ]
    assert absent_problems(("Energies",), [SOURCE]) == ['passage 1978-Carter#0 mentions "Energies"']
    assert absent_problems(("--",), [SOURCE]) == ["it names no term the sources lack"]
    assert not_said_sentence(("a", "b", "c")) == (
        'None of the passages this answer rests on mentions "a", "b" or "c".'
    )
    assert question_problems(QUESTION, HOW, [SOURCE]) == []
    assert question_problems("What did Carter say about 1978?", "", [SOURCE]) == []
    assert question_problems("Carter created it.", HOW, [SOURCE]) == [
        "the question is not one question ending in a question mark"
    ]
    assert question_problems('What did "Carter" say?', HOW, [SOURCE]) == [
        "the question carries citations, quotation marks or markup"
    ]
    assert question_problems("?", HOW, [SOURCE]) == ["the question has no words or more than 30"]
    long = "What " + "Energy " * 30 + "?"
    assert question_problems(long, HOW, [SOURCE]) == ["the question has no words or more than 30"]


def test_the_lesson_decision_counts_what_was_kept() -> None:
    state = review(FULL)
    t = _teaching(state)
    decision, reason = lesson_decision(t.blocks, t.relations)
    assert decision == "PUBLISHED"
    assert reason.startswith("Every part was reviewed: 5 of 5 blocks and 1 of 1 relations kept")


PLAN = Relation(
    id="R1",
    subject="Carter",
    relation="proposed",
    object="a national energy plan",
    citations=("S1",),
)


def test_a_speaker_states_a_relation_in_the_first_person() -> None:
    """`I also recommend a national energy plan` in Carter's address carries `Carter
    proposed a national energy plan`; a modal, another subject or another kind does not."""
    assert speaker_carrier(PLAN, [SOURCE]) == "1978-Carter#0"
    assert speaker_carrier(PLAN.model_copy(update={"subject": "Jimmy Carter"}), [SOURCE])
    assert speaker_carrier(PLAN.model_copy(update={"relation": "opposed"}), [SOURCE]) is None
    assert speaker_carrier(PLAN.model_copy(update={"subject": "Congress"}), [SOURCE]) is None
    taxed = PLAN.model_copy(update={"id": "R2", "object": "a tax on gasoline"})
    assert speaker_carrier(taxed, [SOURCE]) is None  # "I would recommend": not done
    state = review(Lesson(blocks=FULL.blocks[:1], relations=(PLAN, taxed)))
    kept, held = _teaching(state).relations
    assert kept.decision == "kept" and kept.speaker == "1978-Carter#0"
    assert kept.reason.startswith("Carried by the speaker's own words")
    assert held.decision == "dropped" and held.speaker == ""
    assert teaching_problems(receipt_of(state)) == []
    moved = kept.model_copy(update={"speaker": ""})
    problems = teaching_problems(_tampered(state, relations=(moved, held)))
    assert problems == [
        "Relation R1's speaker's passage is not the one its sources give.",
        "Relation R1's decision does not follow from its checks.",
    ]


def test_a_speaker_is_named_only_as_the_metadata_names_them() -> None:
    assert speaker_names(SOURCE, [SOURCE]) == {"Jimmy Carter", "Carter"}
    rival = SOURCE.model_copy(update={"id": "S2", "names": ("Rosalynn Carter",)})
    assert speaker_names(SOURCE, [SOURCE, rival]) == {"Jimmy Carter"}
    assert speaker_carrier(PLAN, [SOURCE, rival]) is None
    handle = SOURCE.model_copy(update={"names": ("jcarter",)})
    assert speaker_names(handle, [handle]) == set()


def test_a_speaker_relation_still_needs_its_other_checks_and_no_contradiction() -> None:
    state = review(Lesson(blocks=FULL.blocks[:1], relations=(PLAN,)))
    claim = _teaching(state).relations[0].claim
    assert claim is not None
    speaker = "1978-Carter#0"
    assert relation_decision(PLAN, claim, Decision.HELD_FOR_REVIEW, speaker)
    assert not relation_decision(PLAN, None, Decision.HELD_FOR_REVIEW, speaker)
    assert not relation_decision(PLAN, claim, Decision.HELD_FOR_REVIEW, None)
    contradicted = claim.model_copy(update={"auditor_verdict": Verdict.CONTRADICTED})
    assert not relation_decision(PLAN, contradicted, Decision.HELD_FOR_REVIEW, speaker)
    hidden = claim.model_copy(
        update={"checks": claim.checks.model_copy(update={"hidden_characters": ("x",)})}
    )
    assert not relation_decision(PLAN, hidden, Decision.HELD_FOR_REVIEW, speaker)
    wrong_verb = PLAN.model_copy(update={"verb": "opposed"})
    assert not relation_decision(wrong_verb, claim, Decision.HELD_FOR_REVIEW, speaker)


def _picture(**changes: Any) -> Illustration:
    good = Illustration(
        engine="openai:gpt-image-1",
        reviewer="openai:gpt-4.1-mini",
        prompt="A plain picture",
        image_sha256="a" * 64,
        media_type="image/png",
        width=1024,
        height=1024,
        review=ImageReview(shows_text=False, depicts_only_the_lesson=True, misleading=False),
        shown=True,
        reason="Shown.",
    )
    return good.model_copy(update=changes)


def test_a_picture_is_shown_only_when_its_checks_and_review_allow_it() -> None:
    assert picture_problems(_picture()) == []
    assert picture_problems(_picture(media_type="image/gif")) == ["it has no image of a known kind"]
    assert picture_problems(_picture(width=64)) == ["its sides are not within 256 to 4096 pixels"]
    assert picture_problems(_picture(review=None)) == ["it was not reviewed"]
    texty = ImageReview(shows_text=True, depicts_only_the_lesson=True, misleading=False)
    assert picture_problems(_picture(review=texty)) == [
        "its review found text, more than the lesson, or something misleading"
    ]


def test_receipt_verify_refuses_a_picture_shown_against_its_review() -> None:
    state = review(FULL)
    receipt = receipt_of(state)
    teaching = _teaching(state)
    assert illustration_problems(receipt, teaching) == []

    def with_picture(picture: Any) -> Receipt:
        return Receipt.model_validate({**receipt.model_dump(mode="json"), "illustration": picture})

    shown = _picture().model_dump(mode="json")
    assert teaching_problems(with_picture(shown)) == []
    texty = ImageReview(shows_text=True, depicts_only_the_lesson=True, misleading=False)
    lying = _picture(review=texty).model_dump(mode="json")
    assert teaching_problems(with_picture(lying)) == [
        "The lesson's picture is marked shown, but its checks and review do not allow it."
    ]
    hidden = _picture(review=texty, shown=False).model_dump(mode="json")
    assert teaching_problems(with_picture(hidden)) == []
    withheld = teaching.model_copy(update={"decision": "WITHHELD"})
    assert illustration_problems(with_picture(shown), withheld) == [
        "The lesson's picture is marked shown, but its checks and review do not allow it."
    ]
    assert illustration_problems(with_picture({"shown": "yes"}), teaching) == [
        "The lesson's illustration is not a valid record."
    ]
