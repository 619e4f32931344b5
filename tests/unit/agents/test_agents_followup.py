"""A follow-up resolved against its conversation (`agents/offline/followup.py`): pronouns
and elided subjects take the earlier question's person or topic; a follow-up that names
its own subject is left alone; the plan is built from the question as understood and
records what was resolved."""

from __future__ import annotations

import pytest
from agents_helpers import sample_profile

from evidence_desk.agents.base import ArchiveProfile
from evidence_desk.agents.offline.planner import OfflinePlanner
from evidence_desk.types import TimeWindow

PLANNER = OfflinePlanner()
SAMPLE = sample_profile()
FDR_1941 = "What did Franklin D. Roosevelt say about freedom of speech in 1941?"
KENNEDY_TAXES = "What did Kennedy say about taxes?"


def understood(question: str, *earlier: str, profile: ArchiveProfile = SAMPLE) -> str:
    return PLANNER.understand(question, earlier, profile).question


@pytest.mark.parametrize(
    ("earlier", "followup", "expected"),
    [
        # person pronouns: the person named most recently, without the earlier year
        (FDR_1941, "What did he say about freedom from fear?",
         "What did Franklin D. Roosevelt say about freedom from fear?"),
        (KENNEDY_TAXES, "Did he mention the Peace Corps too?",
         "Did Kennedy mention the Peace Corps too?"),
        (KENNEDY_TAXES, "What else did he say?", "What else did Kennedy say?"),
        ("What did Truman say about Korea?", "What was his view on the atomic bomb?",
         "What was Truman's view on the atomic bomb?"),
        ("How did Washington and Jefferson talk about the navy?",
         "What did they say about the army?",
         "What did Washington and Jefferson say about the army?"),
        # an ambiguous last name is written as the person its period picked
        ("What did Roosevelt say about the Panama Canal in 1903?",
         "What did he say about the navy?", "What did Theodore Roosevelt say about the navy?"),
        # "it" is the earlier topic; "that year" keeps the earlier period
        ("What did Obama say about health care?", "Did he talk about it again in 2010?",
         "Did Obama talk about health care again in 2010?"),
        (FDR_1941, "What else did he say that year?",
         "What else did Franklin D. Roosevelt say in 1941?"),
        # elided subjects: the earlier question with the follow-up's period, person or topic
        (KENNEDY_TAXES, "What about 1962?", "What did Kennedy say about taxes in 1962?"),
        (KENNEDY_TAXES, "What about in 1962?", "What did Kennedy say about taxes in 1962?"),
        (KENNEDY_TAXES, "And in his second term?",
         "What did Kennedy say about taxes in his second term?"),
        (KENNEDY_TAXES, "In 1963?", "What did Kennedy say about taxes in 1963?"),
        ("How did Lincoln describe the war in 1862?", "And in 1863?",
         "How did Lincoln describe the war in 1863?"),
        ("What did Reagan say about the deficit in his first address?", "And in his last one?",
         "What did Reagan say about the deficit in his last address?"),
        (KENNEDY_TAXES, "How about Medicare?", "What did Kennedy say about Medicare?"),
        (KENNEDY_TAXES, "What about Reagan?", "What did Reagan say about taxes?"),
        (KENNEDY_TAXES, "And what did he say about Cuba?", "What did Kennedy say about Cuba?"),
    ],
)  # fmt: skip
def test_a_follow_up_is_made_self_contained(earlier: str, followup: str, expected: str) -> None:
    assert understood(followup, earlier) == expected


@pytest.mark.parametrize(
    "followup",
    [
        "What did Reagan say about the deficit?",  # a new person with a topic of their own
        "What was said about railroads before 1850?",  # a full question about something else
        "Why?",  # nothing code can place
    ],
)
def test_a_follow_up_with_its_own_subject_is_left_alone(followup: str) -> None:
    resolution = PLANNER.understand(followup, [KENNEDY_TAXES], SAMPLE)
    assert resolution.question == followup
    assert not resolution.resolved
    plan = PLANNER.plan(followup, SAMPLE, [KENNEDY_TAXES])
    assert plan == PLANNER.plan(followup, SAMPLE)
    assert plan.resolved_question is None and plan.resolved_from is None


def test_the_plan_is_built_from_the_resolved_question_and_records_it() -> None:
    plan = PLANNER.plan("What did he say about freedom from fear?", SAMPLE, [FDR_1941])
    assert plan.resolved_question == "What did Franklin D. Roosevelt say about freedom from fear?"
    assert plan.resolved_from == FDR_1941
    assert plan.resolved_subject == "Franklin D. Roosevelt"
    assert [sq.entity for sq in plan.subquestions] == ["franklin d. roosevelt"]
    assert [sq.text for sq in plan.subquestions] == [plan.resolved_question]
    # no year asked: Roosevelt's own span, not 1941
    assert [(w.start, w.end) for w in plan.time_windows] == [("1934-01-03", "1945-01-06")]
    assert plan.queries == ("freedom from fear",)
    assert plan.key_terms == ("freedom", "fear")


def test_without_the_thread_the_follow_up_names_nobody() -> None:
    alone = PLANNER.plan("What did he say about freedom from fear?", SAMPLE)
    assert alone.resolved_question is None
    assert [sq.entity for sq in alone.subquestions] == [None]
    assert alone.time_windows == ()


def test_an_elided_year_narrows_the_earlier_person() -> None:
    plan = PLANNER.plan("What about in 1962?", SAMPLE, [KENNEDY_TAXES])
    assert plan.resolved_subject == "Kennedy"
    assert [(w.start, w.end) for w in plan.time_windows] == [("1962-01-01", "1962-12-31")]
    assert plan.key_terms == ("taxes",)
    assert plan.kind == "temporal"


def test_a_chain_of_follow_ups_keeps_its_subject() -> None:
    thread = [FDR_1941, "What did he say about freedom from fear?"]
    plan = PLANNER.plan("And in 1942?", SAMPLE, thread)
    assert (
        plan.resolved_question
        == "What did Franklin D. Roosevelt say about freedom from fear in 1942?"
    )
    assert plan.resolved_from == thread[1]
    assert [sq.entity for sq in plan.subquestions] == ["franklin d. roosevelt"]


def test_the_person_named_most_recently_wins() -> None:
    thread = ["What did Lincoln say about slavery?", KENNEDY_TAXES, "What about 1962?"]
    assert understood("What did he say about Cuba?", *thread) == "What did Kennedy say about Cuba?"
    thread = [KENNEDY_TAXES, "What did Lincoln say about slavery?"]
    assert (
        understood("What did he say about the war?", *thread)
        == "What did Lincoln say about the war?"
    )


def test_they_with_nobody_named_is_the_agency_and_it_the_topic() -> None:
    profile = ArchiveProfile("2010-01-01", "2020-12-31", {})
    got = understood(
        "When did they start working on it?",
        "What did the National Contact Center say about text messages?",
        profile=profile,
    )
    assert got == "When did the National Contact Center start working on text messages?"
    assert understood("When was its beta released?", "What is openFDA?", profile=profile) == (
        "When was openFDA's beta released?"
    )


def test_a_possessive_her_and_an_object_her() -> None:
    ashida = TimeWindow(start="2014-01-01", end="2016-12-31", label="amy ashida")
    profile = ArchiveProfile("2010-01-01", "2020-12-31", {"amy ashida": (ashida,)})
    earlier = "What did Amy Ashida write about mobile apps?"
    assert understood("What was her first post?", earlier, profile=profile) == (
        "What was Amy Ashida's first post?"
    )
    assert understood("Did anyone interview her?", earlier, profile=profile) == (
        "Did anyone interview Amy Ashida?"
    )


def test_a_pronoun_with_nobody_to_stand_for_is_left_as_written() -> None:
    resolution = PLANNER.understand(
        "What did he say about taxes?", ["What was said about railroads?"], SAMPLE
    )
    assert resolution.question == "What did he say about taxes?"
    assert not resolution.resolved


def test_no_thread_is_the_plan_as_before() -> None:
    q = "What did Lincoln say in 1862 about slavery?"
    assert PLANNER.plan(q, SAMPLE, []) == PLANNER.plan(q, SAMPLE)
