"""A reader's conversations as their pages show them: the list's plain words, and the
follow-up the ask box suggests.

The list (`workspace.html`) names each conversation's latest run in words a reader knows
("Published", "Held for review", "Outside coverage", "Still running"), its mode and when it
was asked, and how many questions the conversation holds (`ThreadSummary`).

The follow-up box suggests a question only from the conversation's own subject: the latest
question is read against the ones before it, as the offline planner reads a follow-up
(`agents/offline/followup.py`), and the person and topic it is about become "What else did
Kennedy say about taxes?". A conversation whose subject code cannot read gets no suggestion
(`followup_hint` returns None, and the page shows a neutral placeholder).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ...agents.base import ArchiveProfile
from ...agents.offline.followup import topic_of
from ...agents.offline.planner import OfflinePlanner
from ...store.accounts import ConversationSummary
from ...types import Decision, decision_words

_PUBLISHED = {Decision.AUTO_CLEARED.value, Decision.PUBLISHED_AFTER_PRUNING.value}
_REVIEWED = {"approved": "Published after review", "edited": "Published after review"}
MAX_HINT_CHARS = 120


@dataclass(frozen=True)
class ThreadSummary:
    """One line of the conversation list."""

    conv_id: str
    title: str
    created_at: str
    questions: int
    mode: str  # "Quick" or "Deep": the latest run's; "" when the conversation has no run
    outcome: str  # the latest run's outcome in plain words
    asked_at: str  # when the latest question was asked (the conversation's start if none)


def outcome_words(status: str | None, decision: str | None, review: str | None) -> str:
    """A run's outcome as a reader says it."""
    if status is None:
        return "No questions yet"
    if status in ("queued", "running"):
        return "Still running"
    if status == "cancelled":
        return "Cancelled"
    if decision in _PUBLISHED:
        return decision_words(decision)
    if decision == Decision.OUTSIDE_COVERAGE.value:
        return "Outside coverage"
    if review == "rejected":
        return "Not published (rejected by an editor)"
    return _REVIEWED.get(review or "", "Held for review")


def thread_summary(row: ConversationSummary) -> ThreadSummary:
    return ThreadSummary(
        conv_id=row.conv_id,
        title=row.title,
        created_at=row.created_at,
        questions=row.questions,
        mode=(row.mode or "").capitalize(),
        outcome=outcome_words(row.status, row.decision, row.review),
        asked_at=row.asked_at or row.created_at,
    )


@lru_cache(maxsize=1)
def _planner() -> OfflinePlanner:
    return OfflinePlanner()


def followup_hint(questions: Sequence[str], profile: ArchiveProfile) -> str | None:
    """A follow-up to suggest after `questions` (a conversation's, oldest first): "What
    else did <person> say about <topic>?" from what the latest question is about, read
    against the ones before it; None when it names neither a person nor a topic."""
    if not questions:
        return None
    planner = _planner()
    understood = planner.understand(questions[-1], questions[:-1], profile).question
    reading = planner.read(understood, profile)
    person = reading.speaker if len(reading.names) == 1 else None
    topic = topic_of(understood, reading)
    if person and topic:
        hint = f"What else did {person} say about {topic}?"
    elif person:
        hint = f"What else did {person} say?"
    elif topic:
        hint = f"What else does the archive say about {topic}?"
    else:
        return None
    hint = re.sub(r"\s+", " ", hint)
    return hint if len(hint) <= MAX_HINT_CHARS else None
