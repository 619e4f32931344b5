"""A model's plan is held to what code reads in the question (`outputs.anchor_plan`)."""

from __future__ import annotations

from evidence_desk.agents.base import ArchiveProfile
from evidence_desk.agents.offline.planner import OfflinePlanner
from evidence_desk.agents.outputs import PlanOut, SubQuestionOut, anchor_plan, to_plan
from evidence_desk.types import Plan, TimeWindow

PROFILE = ArchiveProfile(
    min_date="1790-01-08",
    max_date="2020-02-04",
    entities={"lincoln": (TimeWindow(start="1861-03-04", end="1865-04-15", label="Lincoln"),)},
)
RULES = OfflinePlanner()


def model_plan(question: str, **kw: object) -> PlanOut:
    values: dict[str, object] = {
        "kind": "factoid",
        "subquestions": [SubQuestionOut(text=question)],
        "time_windows": [],
        "queries": ["model query"],
    }
    values.update(kw)
    return PlanOut.model_validate(values)


def anchored(question: str, out: PlanOut) -> tuple[Plan, Plan]:
    code = RULES.plan(question, PROFILE)
    return anchor_plan(to_plan(out, code.key_terms), code), code


def test_stated_years_and_people_keep_their_periods_whatever_the_model_says() -> None:
    for question in (
        "What did Lincoln say about the draft?",
        "What was said about tariffs in 1890?",
    ):
        plan, code = anchored(question, model_plan(question))
        assert plan.time_windows == code.time_windows != ()
        assert plan.subquestions == code.subquestions
        assert plan.kind == code.kind
        assert plan.queries == ("model query",)


def test_without_a_stated_period_the_model_plan_is_used_with_code_key_terms() -> None:
    question = "What was said about tariffs during the Great Depression?"
    out = model_plan(
        question,
        kind="temporal",
        time_windows=[{"start": "1929-10-01", "end": "1939-12-31", "label": "Depression"}],
        queries=["tariffs depression"],
    )
    plan, code = anchored(question, out)
    assert code.time_windows == ()
    assert [(w.start, w.end) for w in plan.time_windows] == [("1929-10-01", "1939-12-31")]
    assert plan.key_terms == code.key_terms
    assert "tariffs" in plan.key_terms


def test_the_offline_plan_is_unchanged_by_anchoring() -> None:
    from evidence_desk.agents.outputs import plan_output

    for question in (
        "What did Lincoln say in 1862 about emancipation?",
        "Compare the 1930s and the 2000s on unemployment",
        "What is the public credit?",
    ):
        code = RULES.plan(question, PROFILE)
        plan = anchor_plan(to_plan(plan_output(code), code.key_terms), code)
        assert plan == code
