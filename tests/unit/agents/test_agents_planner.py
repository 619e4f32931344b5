"""The offline planner: questions become sub-questions, windows, queries and key terms."""

from __future__ import annotations

import pytest
from agents_helpers import profile

from evidence_desk.agents.base import ArchiveProfile
from evidence_desk.agents.offline.names import NameMatcher
from evidence_desk.agents.offline.planner import MAX_QUERIES, MAX_SUBQUESTIONS, OfflinePlanner
from evidence_desk.textutil import stem
from evidence_desk.types import Plan

PROFILE = profile()
PLANNER = OfflinePlanner()

# question -> (kind, [(window start, window end, entity)] per sub-question, key terms)
TABLE: list[tuple[str, str, list[tuple[str | None, str | None, str | None]], list[str]]] = [
    (
        "What did Lincoln say in 1862 about slavery?",
        "temporal",
        [("1862-01-01", "1862-12-31", "abraham lincoln")],
        ["slaveri"],
    ),
    (
        "Compare the 1930s and the 2000s on unemployment",
        "comparison",
        [("1930-01-01", "1939-12-31", None), ("2000-01-01", "2009-12-31", None)],
        ["unemploy"],
    ),
    (
        "How did Washington and Jefferson talk about the navy?",
        "comparison",
        [
            ("1790-01-01", "1796-12-31", "george washington"),
            ("1801-01-01", "1808-12-31", "thomas jefferson"),
        ],
        ["navi"],
    ),
    (
        "What was said about railroads before 1850?",
        "temporal",
        [("0001-01-01", "1849-12-31", None)],
        ["railroad"],
    ),
    ("What did the president say in 2031?", "temporal", [("2031-01-01", "2031-12-31", None)], []),
    (
        "What did Roosevelt say about the Panama Canal?",
        "factoid",
        [
            ("1901-01-01", "1908-12-31", "theodore roosevelt"),
            ("1934-01-01", "1945-12-31", "franklin d. roosevelt"),
        ],
        ["panama", "canal"],
    ),
    (
        "What did Franklin Roosevelt say about banks?",
        "factoid",
        [("1934-01-01", "1945-12-31", "franklin d. roosevelt")],
        ["bank"],
    ),
    (
        "What did FDR say about freedom of speech in 1941?",
        "temporal",
        [("1941-01-01", "1941-12-31", "franklin d. roosevelt")],
        ["freedom", "speech"],
    ),
    (
        "What did Roosevelt say in 1934's address?",
        "temporal",
        [("1934-01-01", "1934-12-31", "franklin d. roosevelt")],
        [],
    ),
    (
        "Reagan versus Kennedy on taxes",  # Reagan is not in this profile: a topic word
        "factoid",
        [("1961-01-01", "1963-12-31", "john f. kennedy")],
        ["reagan", "tax"],
    ),
    (
        "How did the 1860s differ from the 1960s on civil rights?",
        "comparison",
        [("1860-01-01", "1869-12-31", None), ("1960-01-01", "1969-12-31", None)],
        ["civil", "right"],
    ),
    (
        "What did both Lincoln and Grant say about reconstruction?",
        "comparison",
        [
            ("1861-01-01", "1864-12-31", "abraham lincoln"),
            ("1869-01-01", "1876-12-31", "ulysses s. grant"),
        ],
        ["reconstruct"],
    ),
    (
        "What was said about the Monroe Doctrine in the 19th century?",
        "temporal",
        [("1800-01-01", "1899-12-31", None)],
        ["monro", "doctrin"],
    ),
    ("What is the gold standard?", "factoid", [(None, None, None)], ["gold", "standard"]),
]


def _shape(plan: Plan) -> list[tuple[str | None, str | None, str | None]]:
    return [
        (s.window.start if s.window else None, s.window.end if s.window else None, s.entity)
        for s in plan.subquestions
    ]


@pytest.mark.parametrize(("question", "kind", "subs", "key_terms"), TABLE)
def test_planner_table(
    question: str,
    kind: str,
    subs: list[tuple[str | None, str | None, str | None]],
    key_terms: list[str],
) -> None:
    plan = PLANNER.plan(question, PROFILE)
    assert plan.kind == kind
    assert _shape(plan) == subs
    assert [stem(t) for t in plan.key_terms] == key_terms
    assert 1 <= len(plan.queries) <= MAX_QUERIES
    assert len(plan.subquestions) <= MAX_SUBQUESTIONS
    windows = {(w.start, w.end) for w in plan.time_windows}
    assert windows == {(s, e) for s, e, _ in subs if s is not None and e is not None}


def test_person_and_disjoint_year_give_an_empty_window() -> None:
    plan = PLANNER.plan("What did Lincoln say in 1934?", PROFILE)
    (sq,) = plan.subquestions
    assert sq.window is not None and sq.window.start > sq.window.end
    assert sq.entity == "abraham lincoln"


def test_comparison_sides_get_their_own_queries_in_the_users_words() -> None:
    plan = PLANNER.plan("Compare the 1930s and the 2000s on unemployment", PROFILE)
    assert plan.queries == ("unemployment", "unemployment the 1930s", "unemployment the 2000s")
    assert [s.text for s in plan.subquestions] == [
        "What was said about unemployment in the 1930s?",
        "What was said about unemployment in the 2000s?",
    ]


def test_topic_phrase_keeps_the_users_words_together() -> None:
    plan = PLANNER.plan("What did FDR say about freedom of speech in 1941?", PROFILE)
    assert plan.queries == ("freedom of speech",)
    assert plan.subquestions[0].text == "What did FDR say about freedom of speech in 1941?"


def test_question_without_topic_is_its_own_query() -> None:
    q = "What did the president say in 2031?"
    assert PLANNER.plan(q, PROFILE).queries == (q,)


def test_at_most_four_subquestions() -> None:
    q = "Compare 1901, 1902, 1903, 1904 and 1905 on tariffs"
    plan = PLANNER.plan(q, PROFILE)
    assert plan.kind == "comparison"
    assert len(plan.subquestions) == MAX_SUBQUESTIONS
    assert len(plan.queries) <= MAX_QUERIES


def test_names_are_not_places_or_common_words() -> None:
    matcher = NameMatcher(PROFILE.entities)
    assert matcher.find("What about the Monroe Doctrine?") == []
    assert matcher.find("He asked for a federal grant.") == []
    assert [m.text for m in matcher.find("What did Grant say?")] == ["Grant"]
    assert [m.text for m in matcher.find("what did lincoln say")] == ["lincoln"]


def test_profile_labels_disambiguate_a_first_name() -> None:
    # A profile keyed by last name only: the first name is found in the window labels.
    only_last = ArchiveProfile(entities={"roosevelt": PROFILE.entities["roosevelt"]})
    plan = PLANNER.plan("What did Theodore Roosevelt say about trusts?", only_last)
    assert [s.window.start for s in plan.subquestions if s.window] == ["1901-01-01"]
    assert plan.key_terms == ("trusts",)


def test_empty_profile_plans_time_only() -> None:
    plan = PLANNER.plan("What did Lincoln say in 1862?", ArchiveProfile())
    assert plan.kind == "temporal"
    assert [s.entity for s in plan.subquestions] == [None]
    assert plan.key_terms == ("lincoln",)


def test_people_with_their_own_years_make_a_comparison() -> None:
    plan = PLANNER.plan(
        "How did Lincoln in 1862 and Washington in 1790 talk about freedom?", PROFILE
    )
    assert plan.kind == "comparison"
    spans = [(sq.window.start[:4], sq.window.end[:4]) for sq in plan.subquestions if sq.window]
    assert spans == [("1862", "1862"), ("1790", "1790")]


def test_a_name_after_about_is_a_topic_not_a_second_side() -> None:
    plan = PLANNER.plan("What did Lincoln say about Washington?", PROFILE)
    assert plan.kind != "comparison"
    assert len(plan.subquestions) == 1


def test_the_fullest_name_match_wins_over_a_skipped_initial() -> None:
    from evidence_desk.types import TimeWindow

    hw = TimeWindow(start="1990-01-31", end="1992-01-28", label="George H.W. Bush")
    w = TimeWindow(start="2002-01-29", end="2008-01-28", label="George W. Bush")
    matcher = NameMatcher({"george h.w. bush": (hw,), "george w. bush": (w,), "bush": (hw, w)})
    [mention] = matcher.find("What did George W. Bush propose for hydrogen cars?")
    assert [e.window for e in mention.windows] == [w]
