"""The web searches a run issues: Quick one, Deep at most three (the plan's, the reader's
question, then a gap or counter-evidence search), always in the reader's own terms."""

from __future__ import annotations

import pytest

from evidence_desk.agents.base import ArchiveProfile
from evidence_desk.agents.offline.planner import OfflinePlanner
from evidence_desk.runs.web import COUNTER_WORDS, web_queries
from evidence_desk.types import Hit, Passage, Plan, SubQuestion

PLANNER = OfflinePlanner(reference_year=2026)


def hit(text: str) -> Hit:
    return Hit(passage=Passage(id="d#0", doc_id="d", text=text, start=0, end=len(text)), score=1)


def plan(*queries: str, key_terms: tuple[str, ...] = ()) -> Plan:
    return Plan(subquestions=(SubQuestion(text="q"),), queries=queries, key_terms=key_terms)


def test_quick_asks_once_with_the_plans_first_query() -> None:
    assert web_queries("Q?", plan("library budget", "council vote"), "quick", []) == [
        ("library budget", "web:plan")
    ]
    assert web_queries("  What   happened? ", plan(), "quick", []) == [
        ("What happened?", "web:plan")
    ]


def test_deep_adds_the_question_and_a_gap_search() -> None:
    queries = web_queries(
        "Why did the council raise the library budget?",
        plan("council library budget", key_terms=("council", "library", "levy")),
        "deep",
        [hit("The council met on Tuesday.")],
    )
    assert queries == [
        ("council library budget", "web:plan"),
        ("Why did the council raise the library budget?", "web:question"),
        ("council library budget levy", "web:gap"),
    ]


def test_deep_asks_for_counter_evidence_when_there_is_no_gap() -> None:
    queries = web_queries(
        "Q?",
        plan("library budget", "budget vote", key_terms=("library", "budget")),
        "deep",
        [hit("The library budget was raised.")],
    )
    assert len(queries) == 3
    assert queries[-1] == (f"library budget {COUNTER_WORDS}", "web:counter")


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        (
            "How do I stop condensation on my bedroom windows in winter?",
            {"condensation", "windows"},
        ),
        ("Is it safe to reuse bathwater for my garden plants?", {"bathwater", "garden"}),
        (
            "What did the Millbrook council decide about the library budget?",
            {"millbrook", "library"},
        ),
    ],
)
def test_the_planners_queries_keep_the_readers_setting_and_terms(
    question: str, terms: set[str]
) -> None:
    """A household question is searched as the reader asked it, not turned into generic
    "official guidance" or "authority" searches."""
    p = PLANNER.plan(question, ArchiveProfile())
    queries = web_queries(question, p, "deep", [])
    assert 1 <= len(queries) <= 3
    first = queries[0][0].lower()
    assert terms <= set(first.split()), first
    for query, _ in queries:
        lowered = query.lower()
        assert not {"authority", "official", "government", "guidance"} & set(lowered.split())
