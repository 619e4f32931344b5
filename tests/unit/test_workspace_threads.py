"""The conversation list's words and the follow-up box's suggestion (`desk/workspace/threads.py`),
and the store's one-query summary of a reader's conversations (`store/accounts.py`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from evidence_desk.agents.base import ArchiveProfile
from evidence_desk.desk.workspace.threads import followup_hint, outcome_words, thread_summary
from evidence_desk.store import accounts
from evidence_desk.store.migrations import migrate
from evidence_desk.store.rows import RunOwner
from evidence_desk.store.runs import own_run
from evidence_desk.types import TimeWindow

KENNEDY = TimeWindow(start="1961-01-30", end="1963-01-14", label="John F. Kennedy")
TEDDY = TimeWindow(start="1901-12-03", end="1908-12-08", label="Theodore Roosevelt")
FRANKLIN = TimeWindow(start="1934-01-03", end="1945-01-06", label="Franklin D. Roosevelt")
PROFILE = ArchiveProfile(
    "1790-01-08",
    "2020-02-04",
    {
        "john f. kennedy": (KENNEDY,),
        "kennedy": (KENNEDY,),
        "theodore roosevelt": (TEDDY,),
        "franklin d. roosevelt": (FRANKLIN,),
        "roosevelt": (TEDDY, FRANKLIN),
    },
)


@pytest.mark.parametrize(
    ("status", "decision", "review", "words"),
    [
        (None, None, None, "No questions yet"),
        ("queued", None, None, "Still running"),
        ("running", None, None, "Still running"),
        ("cancelled", None, None, "Cancelled"),
        ("finished", "AUTO_CLEARED", None, "Published"),
        ("finished", "PUBLISHED_AFTER_PRUNING", None, "Published after pruning"),
        ("finished", "OUTSIDE_COVERAGE", None, "Outside coverage"),
        ("finished", "HELD_FOR_REVIEW", None, "Held for review"),
        ("finished", "HELD_FOR_REVIEW", "approved", "Published after review"),
        ("finished", "HELD_FOR_REVIEW", "edited", "Published after review"),
        ("finished", "HELD_FOR_REVIEW", "rejected", "Not published (rejected by an editor)"),
    ],
)
def test_outcomes_in_plain_words(
    status: str | None, decision: str | None, review: str | None, words: str
) -> None:
    assert outcome_words(status, decision, review) == words


@pytest.mark.parametrize(
    ("questions", "hint"),
    [
        (["What did Kennedy say about taxes?"], "What else did Kennedy say about taxes?"),
        (
            ["What did Kennedy say about taxes?", "What about in 1962?"],
            "What else did Kennedy say about taxes?",
        ),
        (
            ["What did Roosevelt say about the Panama Canal in 1903?", "And the navy?"],
            "What else did Theodore Roosevelt say about the navy?",
        ),
        (["What did Kennedy say?"], "What else did Kennedy say?"),
        (["What was said about railroads?"], "What else does the archive say about railroads?"),
        (["Tell me everything."], None),
        ([], None),
    ],
)
def test_the_follow_up_hint_comes_from_the_conversations_own_subject(
    questions: list[str], hint: str | None
) -> None:
    assert followup_hint(questions, PROFILE) == hint


def test_a_tax_conversation_is_never_offered_freedom_from_fear() -> None:
    hint = followup_hint(["What did Kennedy say about taxes?"], PROFILE)
    assert hint is not None and "fear" not in hint and "he " not in hint


def _db(tmp_path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(tmp_path / "desk.sqlite", isolation_level=None)
    migrate(db)
    return db


def _run(
    db: sqlite3.Connection, run_id: str, question: str, mode: str, status: str, **kw: str
) -> None:
    db.execute(
        "INSERT INTO runs (run_id, created_at, updated_at, question, mode, status, next_stage, "
        "decision, failure, lease_owner, lease_expires, opening) "
        "VALUES (?, ?, ?, ?, ?, ?, NULL, ?, NULL, NULL, NULL, '{}')",
        (run_id, kw["at"], kw["at"], question, mode, status, kw.get("decision")),
    )


def test_the_store_summarises_each_conversation_by_its_latest_run(tmp_path: Path) -> None:
    import datetime as dt

    db = _db(tmp_path)
    t0 = dt.datetime(2031, 1, 1, tzinfo=dt.UTC)
    user = accounts.add_user(db, t0, "ann", "reader", None)
    older = accounts.new_conversation(db, t0, user.user_id, "Taxes")
    newer = accounts.new_conversation(db, t0 + dt.timedelta(hours=1), user.user_id, "Empty")
    for n, (mode, status, decision) in enumerate(
        [("quick", "finished", "HELD_FOR_REVIEW"), ("deep", "running", None)]
    ):
        at = t0 + dt.timedelta(minutes=n)
        _run(db, f"run-{n}", f"Question {n}?", mode, status, at=at.isoformat(), decision=decision)
        own_run(db, at, f"run-{n}", RunOwner(user.user_id, older.conv_id, "workspace"))
    first, second = accounts.conversations_of(db, user.user_id, 10)
    assert (first.conv_id, first.questions, first.status) == (newer.conv_id, 0, None)
    assert (second.questions, second.mode, second.status, second.decision) == (
        2,
        "deep",
        "running",
        None,
    )
    summary = thread_summary(second)
    assert (summary.outcome, summary.mode, summary.questions) == ("Still running", "Deep", 2)
    assert summary.asked_at.startswith("2031-01-01T00:01")
    assert thread_summary(first).outcome == "No questions yet"
    found = accounts.conversation(db, older.conv_id, user.user_id, recent=1)
    assert found is not None and found.recent_questions == ("Question 1?",)
    found = accounts.conversation(db, older.conv_id, user.user_id)
    assert found is not None and found.recent_questions == ("Question 0?", "Question 1?")
    assert accounts.conversation(db, older.conv_id, "someone else") is None
